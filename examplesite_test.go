package sitediag_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"

	"github.com/sitediag/sitediag"
)

// exampleClient returns a client that may reach the loopback fixture an
// example starts, as an operator would exempt an internal network.
func exampleClient() *sitediag.Client {
	c, err := sitediag.New(sitediag.Config{
		AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
	})
	if err != nil {
		panic(err)
	}
	return c
}

// exampleSite is a site an example serves on loopback and an
// exampleClient, which may reach it.
type exampleSite struct {
	*httptest.Server
	// Client may reach the site.
	Client *sitediag.Client
}

// serveExample serves h on loopback over HTTP.
func serveExample(h http.HandlerFunc) *exampleSite {
	return &exampleSite{Server: httptest.NewServer(h), Client: exampleClient()}
}

// serveExampleTLS serves h on loopback over TLS, with HTTP/2.
func serveExampleTLS(h http.HandlerFunc) *exampleSite {
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	return &exampleSite{Server: srv, Client: exampleClient()}
}

// Close closes the client and the site.
func (s *exampleSite) Close() {
	s.Client.Close()
	s.Server.Close()
}
