package httpapi_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/proxytest"
)

// TestProxyCountry proves that every HTTP-level operation sends its
// traffic through the proxy of the country asked for, and that the
// target is checked before anything is handed to the proxy.
func TestProxyCountry(t *testing.T) {
	connect := proxytest.StartConnect(t, proxytest.Options{User: "ops", Password: "s3cret"})
	socks := proxytest.StartSOCKS5(t, proxytest.Options{})
	api := newAPI(t, apitest.Options{Config: sitediag.Config{
		Proxies: map[string]*url.URL{"us": connect.URL, "de": socks.URL},
	}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<a href=/>home</a>"))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	pinned := "127.0.0.1:" + port

	ops := []string{"/up", "/redirectcheck", "/ttfb", "/loadtime", "/httpheader", "/httpprotocol", "/brokenlink"}
	for _, proxy := range []struct {
		country string
		p       *proxytest.Proxy
	}{{"us", connect}, {"DE", socks}} {
		for _, op := range ops {
			t.Run(proxy.country+op, func(t *testing.T) {
				before := len(proxy.p.Targets())
				meta, _ := api.Post(t, op, map[string]any{"url": siteURL(srv, "/"), "proxyCountry": proxy.country}).WantSuccess(t)
				if meta["proxyCountry"] != proxy.country {
					t.Errorf("meta.proxyCountry: got %v, want %s", meta["proxyCountry"], proxy.country)
				}
				targets := proxy.p.Targets()[before:]
				if len(targets) == 0 || slices.IndexFunc(targets, func(s string) bool { return s != pinned }) >= 0 {
					t.Errorf("the proxy was asked for %v, want only %s (at least once)", targets, pinned)
				}
			})
		}
	}

	t.Run("refused target never reaches the proxy", func(t *testing.T) {
		before := len(connect.Targets())
		for _, op := range ops {
			api.Post(t, op, map[string]any{"url": "http://private.test/", "proxyCountry": "us"}).WantError(t, 403, sitediag.CodeTargetNotAllowed)
		}
		if got := connect.Targets()[before:]; len(got) != 0 {
			t.Errorf("the proxy was asked for %v", got)
		}
	})
	t.Run("unknown country", func(t *testing.T) {
		for _, op := range ops {
			api.Post(t, op, map[string]any{"url": siteURL(srv, "/"), "proxyCountry": "fr"}).WantError(t, 400, sitediag.CodeProxyCountryUnsupported)
		}
	})
}
