package httpprobe_test

import (
	"net"
	"net/http/httptest"
	"net/url"
	"testing"
)

// siteURL is srv's URL with its host replaced by site.test.
func siteURL(t *testing.T, srv *httptest.Server, path string) *url.URL {
	t.Helper()
	u, err := url.Parse(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(u.Host)
	u.Host = net.JoinHostPort("site.test", port)
	return u
}

// deadPort returns a loopback TCP port where nothing listens.
func deadPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}
