package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

func (h *Handler) ttfb(ctx context.Context, req *requestBody, test testRecord) (*response, error) {
	res, err := h.client.TTFB(ctx, req.URL, sitediag.TTFBOptions{RequestOptions: req.RequestOptions})
	if err != nil {
		return nil, err
	}
	return &response{
		Meta: followMetaOf(res.RequestInfo, test),
		Data: res.TTFB,
	}, nil
}
