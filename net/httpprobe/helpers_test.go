package httpprobe_test

import (
	"net"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"

	"github.com/sitediag/sitediag/internal/porttest"
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
func deadPort(t *testing.T) string { return strconv.Itoa(int(porttest.Closed(t))) }
