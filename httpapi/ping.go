package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

type pingRequest struct {
	URL          string `json:"url"`
	Count        int    `json:"count" api:"min=1,max=16,default=4"`
	ProxyCountry string `json:"proxyCountry"`
}

type pingMeta struct {
	URL   string     `json:"url"`
	Count int        `json:"count"`
	Test  testRecord `json:"test"`
}

func (h *Handler) ping(ctx context.Context, req *pingRequest, test testRecord) (*response, error) {
	res, err := h.client.Ping(ctx, req.URL, sitediag.PingOptions{Count: req.Count, ProxyCountry: req.ProxyCountry})
	if err != nil {
		return nil, err
	}
	return &response{Meta: pingMeta{URL: res.Host, Count: res.Count, Test: test}, Data: res}, nil
}
