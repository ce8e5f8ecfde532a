package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

type dnssecRequest struct {
	URL string `json:"url"`
}

type dnssecMeta struct {
	URL  string     `json:"url"`
	Test testRecord `json:"test"`
}

func (h *Handler) dnssec(ctx context.Context, req *dnssecRequest, test testRecord) (*response, error) {
	res, err := h.client.DNSSEC(ctx, req.URL, sitediag.DNSSECOptions{})
	if err != nil {
		return nil, err
	}
	return &response{Meta: dnssecMeta{URL: res.Host, Test: test}, Data: res}, nil
}
