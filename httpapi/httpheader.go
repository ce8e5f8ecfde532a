package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

func (h *Handler) httpHeader(ctx context.Context, req *requestBody, test testRecord) (*response, error) {
	res, err := h.client.HTTPHeader(ctx, req.URL, sitediag.HTTPHeaderOptions{RequestOptions: req.RequestOptions})
	if err != nil {
		return nil, err
	}
	return &response{
		Meta: followMetaOf(res.RequestInfo, test),
		Data: res.Headers,
	}, nil
}
