package sitediag_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/dnstest"
	"github.com/sitediag/sitediag/internal/netnstest"
)

// brandPage is a page whose brand name is name.
func brandPage(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><html><head><title>%[1]s</title><meta property="og:site_name" content="%[1]s"></head>`+
			`<body><h1>%[1]s</h1></body></html>`, name)
	}
}

// The brand record of a domain is read from its own home page, HTTPS
// first, whatever path, scheme or port the caller sent (#30: it was the
// caller's page, kept 24 h for everyone). The domain is served by
// another host (a network namespace) on 443 and 80, as a real one is.
func TestBrandHomePage(t *testing.T) {
	needChromium(t)
	peer := netnstest.NewPeer(t)
	mux := func(home string) *http.ServeMux {
		m := http.NewServeMux()
		m.Handle("/{$}", brandPage(home))
		m.Handle("/chosen/", brandPage("Chosen By A Caller"))
		return m
	}
	serve := func(port int, home string, tls bool) *httptest.Server {
		srv := httptest.NewUnstartedServer(mux(home))
		srv.Listener.Close()
		srv.Listener = peer.Listen(t, port)
		if tls {
			srv.StartTLS()
		} else {
			srv.Start()
		}
		t.Cleanup(srv.Close)
		return srv
	}
	secure := serve(443, "Secure Home", true)
	serve(80, "Plain Home", false)
	other := serve(0, "Other Port Home", false)
	dns := dnstest.Start(t)
	dns.Add(t, "brand.test. 60 IN A "+peer.Addr.String(), "www.brand.test. 60 IN A "+peer.Addr.String())
	c := newClient(t, sitediag.Config{DNSServers: []string{dns.Addr}, AllowNetworks: []netip.Prefix{netip.PrefixFrom(peer.Addr, 32)}})
	ctx := context.Background()
	brandOf := func(rawURL string, opts sitediag.BrandOptions) *sitediag.BrandResult {
		t.Helper()
		res, err := c.Brand(ctx, rawURL, opts)
		if err != nil {
			t.Fatalf("Brand(%s): %v", rawURL, err)
		}
		return res
	}

	// The caller's path and scheme are not what is read.
	if res := brandOf("http://www.brand.test/chosen/page?x=1", sitediag.BrandOptions{}); res.Record.Name != "Secure Home" || res.Domain != "brand.test" {
		t.Errorf("http://www.brand.test/chosen/page: record %q of %s, want Secure Home of brand.test", res.Record.Name, res.Domain)
	}
	// Another port is a site of its own: its home page, cached apart.
	otherURL := "https://brand.test:" + port(other.URL) + "/chosen/"
	if res := brandOf(otherURL, sitediag.BrandOptions{}); res.Record.Name != "Other Port Home" || res.Cached {
		t.Errorf("%s: record %q (cached %v), want Other Port Home, extracted", otherURL, res.Record.Name, res.Cached)
	}
	if res := brandOf("https://brand.test/", sitediag.BrandOptions{}); res.Record.Name != "Secure Home" || !res.Cached {
		t.Errorf("https://brand.test/ after another port's: record %q (cached %v), want Secure Home from the cache", res.Record.Name, res.Cached)
	}
	// Without HTTPS, the home page over HTTP.
	secure.Close()
	if res := brandOf("https://brand.test/chosen/", sitediag.BrandOptions{Refresh: sitediag.On}); res.Record.Name != "Plain Home" {
		t.Errorf("with HTTPS down: record %q, want Plain Home", res.Record.Name)
	}
}
