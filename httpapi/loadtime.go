package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

func (h *Handler) loadTime(ctx context.Context, req *requestBody, test testRecord) (*response, error) {
	res, err := h.client.LoadTime(ctx, req.URL, sitediag.LoadTimeOptions{RequestOptions: req.RequestOptions})
	if err != nil {
		return nil, err
	}
	return &response{
		Message: messageReachable,
		Meta:    followMetaOf(res.RequestInfo, test),
		Data:    res,
	}, nil
}
