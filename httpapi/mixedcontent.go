package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

type mixedContentRequest struct {
	URL string `json:"url"`
	sitediag.PageOptions
	FollowRedirect sitediag.Toggle `json:"followRedirect"`
}

type mixedContentMeta struct {
	sitediag.PageVisit
	sitediag.MixedContentSettings
	Test testRecord `json:"test"`
}

func (h *Handler) mixedContent(ctx context.Context, req *mixedContentRequest, test testRecord) (*response, error) {
	res, err := h.client.MixedContent(ctx, req.URL, sitediag.MixedContentOptions{
		PageOptions: req.PageOptions, FollowRedirect: req.FollowRedirect,
	})
	if err != nil {
		return nil, err
	}
	return &response{
		Message: mixedContentMessage(len(res.Items) > 0),
		Meta:    mixedContentMeta{PageVisit: res.PageVisit, MixedContentSettings: res.Settings, Test: test},
		Data:    res,
	}, nil
}
