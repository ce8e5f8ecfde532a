package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

func (h *Handler) httpProtocol(ctx context.Context, req *requestBody, test testRecord) (*response, error) {
	res, err := h.client.HTTPProtocol(ctx, req.URL, sitediag.HTTPProtocolOptions{RequestOptions: req.RequestOptions})
	if err != nil {
		return nil, err
	}
	return &response{
		Meta: followMetaOf(res.RequestInfo, test),
		Data: res.ProtocolSupport,
	}, nil
}
