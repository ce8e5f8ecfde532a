package httpapi

import (
	"context"
	"time"

	"github.com/sitediag/sitediag"
)

type brandRequest struct {
	URL string `json:"url"`
	sitediag.BrandOptions
}

type brandMeta struct {
	Domain           string     `json:"domain"`
	Mode             string     `json:"mode"`
	Cached           bool       `json:"cached"`
	LastUpdated      string     `json:"lastUpdated"`
	DataAge          string     `json:"dataAge"`
	RefreshRequested bool       `json:"refreshRequested"`
	BlockedRequests  int        `json:"blockedRequests"`
	Test             testRecord `json:"test"`
}

func (h *Handler) brand(ctx context.Context, req *brandRequest, test testRecord) (*response, error) {
	res, err := h.client.Brand(ctx, req.URL, req.BrandOptions)
	if err != nil {
		return nil, err
	}
	meta := brandMeta{
		Domain: res.Domain, Mode: res.Mode, Cached: res.Cached, LastUpdated: res.LastUpdated.UTC().Format(time.RFC3339),
		DataAge: res.DataAge(h.now()), RefreshRequested: res.RefreshRequested, BlockedRequests: res.BlockedRequests, Test: test,
	}
	return &response{Meta: meta, Data: res.Record}, nil
}
