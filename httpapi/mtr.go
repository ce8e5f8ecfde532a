package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

type mtrRequest struct {
	URL          string `json:"url"`
	Count        int    `json:"count" api:"min=1,max=20,default=5"`
	MaxHops      int    `json:"maxHops" api:"min=1,max=64,default=30"`
	NoLookup     bool   `json:"noLookup"`
	ProxyCountry string `json:"proxyCountry"`
}

type mtrMeta struct {
	URL     string     `json:"url"`
	IP      string     `json:"ip"`
	Count   int        `json:"count"`
	MaxHops int        `json:"maxHops"`
	Test    testRecord `json:"test"`
}

func (h *Handler) mtr(ctx context.Context, req *mtrRequest, test testRecord) (*response, error) {
	res, err := h.client.MTR(ctx, req.URL, sitediag.MTROptions{
		Count: req.Count, MaxHops: req.MaxHops, NoLookup: req.NoLookup, ProxyCountry: req.ProxyCountry,
	})
	if err != nil {
		return nil, err
	}
	return &response{
		Meta: mtrMeta{URL: res.Host, IP: res.IP, Count: res.Count, MaxHops: res.MaxHops, Test: test},
		Data: res.Hops,
	}, nil
}
