package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

func (h *Handler) httpHeader(ctx context.Context, req *probeRequest, test testRecord) (*response, error) {
	res, err := h.client.HTTPHeader(ctx, req.URL, sitediag.HTTPHeaderOptions{FollowRedirect: req.FollowRedirect, ProxyCountry: req.ProxyCountry})
	if err != nil {
		return nil, err
	}
	return &response{
		Meta: followMetaOf(res.RequestInfo, test),
		Data: res.Headers,
	}, nil
}
