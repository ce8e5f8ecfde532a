package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

type brokenLinkMeta struct {
	followMeta
	// LinksFound counts the distinct links on the page; data holds at
	// most sitediag.MaxLinks of them.
	LinksFound int `json:"linksFound"`
}

func (h *Handler) brokenLink(ctx context.Context, req *requestBody, test testRecord) (*response, error) {
	res, err := h.client.BrokenLink(ctx, req.URL, sitediag.BrokenLinkOptions{RequestOptions: req.RequestOptions})
	if err != nil {
		return nil, err
	}
	meta := followMetaOf(res.RequestInfo, test)
	meta.URL = res.Host // host form, as the spec has it for /brokenlink
	return &response{
		Message: brokenLinkMessage(res.Summary),
		Meta:    brokenLinkMeta{followMeta: meta, LinksFound: res.LinksFound},
		Data:    res.Links,
		Summary: res.Summary,
	}, nil
}
