package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

func (h *Handler) loadTime(ctx context.Context, req *probeRequest, test testRecord) (*response, error) {
	res, err := h.client.LoadTime(ctx, req.URL, sitediag.LoadTimeOptions{FollowRedirect: req.FollowRedirect, ProxyCountry: req.ProxyCountry})
	if err != nil {
		return nil, err
	}
	return &response{
		Message: "Site is reachable.",
		Meta:    followMetaOf(res.RequestInfo, test),
		Data:    res,
	}, nil
}
