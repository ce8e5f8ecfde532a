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

func (h *Handler) brokenLink(ctx context.Context, req *followRequest, test testRecord) (*response, error) {
	res, err := h.client.BrokenLink(ctx, req.URL, sitediag.BrokenLinkOptions{
		NoFollowRedirect: req.FollowRedirect != nil && !*req.FollowRedirect,
		ProxyCountry:     req.ProxyCountry,
	})
	if err != nil {
		return nil, err
	}
	meta := followMetaOf(res.RequestInfo, test)
	meta.URL = res.Host // host form, as the spec has it for /brokenlink
	return &response{
		Message: res.Message(),
		Meta:    brokenLinkMeta{followMeta: meta, LinksFound: res.LinksFound},
		Data:    res.Links,
		Summary: res.Summary,
	}, nil
}
