package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

// followRequest is the body of the operations whose followRedirect
// defaults to true: /up and /brokenlink.
type followRequest struct {
	URL            string `json:"url"`
	FollowRedirect *bool  `json:"followRedirect"`
	ProxyCountry   string `json:"proxyCountry"`
}

// followMeta is the meta of the operations that may follow redirects:
// the target, the proxy country, whether redirects were followed and the
// URL they led to.
type followMeta struct {
	URL            string     `json:"url"`
	ProxyCountry   string     `json:"proxyCountry,omitempty"`
	FollowRedirect bool       `json:"followRedirect"`
	RedirectedURL  string     `json:"redirectedURL"`
	Test           testRecord `json:"test"`
}

func (h *Handler) up(ctx context.Context, req *followRequest, test testRecord) (*response, error) {
	res, err := h.client.Up(ctx, req.URL, sitediag.UpOptions{
		NoFollowRedirect: req.FollowRedirect != nil && !*req.FollowRedirect,
		ProxyCountry:     req.ProxyCountry,
	})
	if err != nil {
		return nil, err
	}
	msg := "Site is up"
	if !res.Reachable {
		msg = "Unable to reach the URL."
	}
	meta := followMetaOf(res.RequestInfo, test)
	meta.URL = res.Host // host form, as the spec has it for /up
	return &response{Message: msg, Meta: meta, Data: res}, nil
}

type redirectCheckRequest struct {
	URL          string `json:"url"`
	ProxyCountry string `json:"proxyCountry"`
}

type redirectCheckMeta struct {
	URL          string     `json:"url"`
	ProxyCountry string     `json:"proxyCountry,omitempty"`
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

// followMetaOf is the meta of an HTTP probe's result.
func followMetaOf(info sitediag.RequestInfo, test testRecord) followMeta {
	return followMeta{URL: info.URL, ProxyCountry: info.ProxyCountry, FollowRedirect: info.FollowRedirect,
		RedirectedURL: info.RedirectedURL, Test: test}
}
