package httpprobe_test

import (
	"net"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"testing"

	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/dnstest"
	"github.com/sitediag/sitediag/internal/guard"
)

// newGuard returns a guard whose resolver is a local DNS server where
// site.test is 127.0.0.1 and private.test is 10.0.0.1, allowing
// 127.0.0.1 only.
func newGuard(t *testing.T) *guard.Guard {
	t.Helper()
	srv := dnstest.Start(t)
	srv.Add(t, "site.test. 60 IN A 127.0.0.1", "private.test. 60 IN A 10.0.0.1")
	return guard.New(&dns.Resolver{Servers: []string{srv.Addr}},
		guard.NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}))
}

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
