package httpapi_test

import (
	"net"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/porttest"
)

// newAPI starts the test API with site.test at 127.0.0.1 and
// private.test at 10.0.0.1 (refused by the policy).
func newAPI(t *testing.T, opts apitest.Options) *apitest.API {
	t.Helper()
	api := apitest.New(t, opts)
	api.DNS.Add(t, "site.test. 60 IN A 127.0.0.1", "private.test. 60 IN A 10.0.0.1")
	return api
}

// siteURL is srv's URL for path with site.test as its host.
func siteURL(srv *httptest.Server, path string) string {
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	scheme := "http"
	if srv.TLS != nil {
		scheme = "https"
	}
	return scheme + "://site.test:" + port + path
}

// hostOf is the host:port form of a site.test URL (meta.url's host form).
func hostOf(rawURL string) string {
	rest := rawURL[strings.Index(rawURL, "://")+3:]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// deadPort is a loopback TCP port where nothing listens.
func deadPort(t *testing.T) string { return strconv.Itoa(int(porttest.Closed(t))) }

// num reads a JSON number out of a decoded object.
func num(t *testing.T, m map[string]any, key string) float64 {
	t.Helper()
	v, ok := m[key].(float64)
	if !ok {
		t.Fatalf("%s: got %v (%T), want a number", key, m[key], m[key])
	}
	return v
}
