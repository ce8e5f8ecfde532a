package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

type tlsScanRequest struct {
	URL string `json:"url"`
}

type tlsScanMeta struct {
	URL  string     `json:"url"`
	Test testRecord `json:"test"`
}

func (h *Handler) tlsScan(ctx context.Context, req *tlsScanRequest, test testRecord) (*response, error) {
	res, err := h.client.TLSScan(ctx, req.URL, sitediag.TLSScanOptions{})
	if err != nil {
		return nil, err
	}
	return &response{Meta: tlsScanMeta{URL: res.Host, Test: test}, Data: res}, nil
}
