package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

// probeRequest is the body of the HTTP probes whose followRedirect
// defaults to false: /ttfb, /loadtime, /httpheader, /httpprotocol.
type probeRequest struct {
	URL            string `json:"url"`
	FollowRedirect bool   `json:"followRedirect"`
	ProxyCountry   string `json:"proxyCountry"`
}

func (h *Handler) ttfb(ctx context.Context, req *probeRequest, test testRecord) (*response, error) {
	res, err := h.client.TTFB(ctx, req.URL, sitediag.TTFBOptions{FollowRedirect: req.FollowRedirect, ProxyCountry: req.ProxyCountry})
	if err != nil {
		return nil, err
	}
	return &response{
		Meta: followMetaOf(res.RequestInfo, test),
		Data: res.TTFB,
	}, nil
}
