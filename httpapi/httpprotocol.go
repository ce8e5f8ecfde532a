package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

func (h *Handler) httpProtocol(ctx context.Context, req *probeRequest, test testRecord) (*response, error) {
	res, err := h.client.HTTPProtocol(ctx, req.URL, sitediag.HTTPProtocolOptions{FollowRedirect: req.FollowRedirect, ProxyCountry: req.ProxyCountry})
	if err != nil {
		return nil, err
	}
	return &response{
		Meta: followMetaOf(res.RequestInfo, test),
		Data: res.ProtocolSupport,
	}, nil
}
