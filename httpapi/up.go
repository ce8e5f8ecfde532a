package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

func (h *Handler) up(ctx context.Context, req *requestBody, test testRecord) (*response, error) {
	res, err := h.client.Up(ctx, req.URL, sitediag.UpOptions{RequestOptions: req.RequestOptions})
	if err != nil {
		return nil, err
	}
	meta := followMetaOf(res.RequestInfo, test)
	meta.URL = res.Host // host form, as the spec has it for /up
	return &response{Message: upMessage(res.Reachable), Meta: meta, Data: res}, nil
}

type redirectCheckRequest struct {
	URL          string `json:"url"`
	ProxyCountry string `json:"proxyCountry"`
}

type redirectCheckMeta struct {
	URL          string     `json:"url"`
	ProxyCountry string     `json:"proxyCountry"`
	Test         testRecord `json:"test"`
}

func (h *Handler) redirectCheck(ctx context.Context, req *redirectCheckRequest, test testRecord) (*response, error) {
	res, err := h.client.RedirectCheck(ctx, req.URL, sitediag.RedirectCheckOptions{ProxyCountry: req.ProxyCountry})
	if err != nil {
		return nil, err
	}
	return &response{
		Meta: redirectCheckMeta{URL: res.Host, ProxyCountry: res.ProxyCountry, Test: test},
		Data: res.Hops,
	}, nil
}
