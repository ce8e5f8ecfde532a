package sitediag_test

import (
	"net"
	"net/http"
	"net/http/httptest"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/dnstest"
)

// newExampleClient returns a client of cfg; an example has no test to
// fail, so an error panics.
func newExampleClient(cfg sitediag.Config) *sitediag.Client {
	c, err := sitediag.New(cfg)
	if err != nil {
		panic(err)
	}
	return c
}

// exampleClient returns a client that may reach the loopback fixture an
// example starts, as an operator would exempt an internal network.
func exampleClient() *sitediag.Client {
	return newExampleClient(sitediag.Config{AllowNetworks: loopback})
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

// exampleDNS starts a local DNS server, standing in for the operator's
// resolver, that serves records (zone-file lines); Close stops it.
func exampleDNS(records ...string) *dnstest.Server {
	srv, err := dnstest.Listen()
	if err != nil {
		panic(err)
	}
	if err := srv.AddText(records...); err != nil {
		srv.Close()
		panic(err)
	}
	return srv
}

// exampleListen listens on a random port of 127.0.0.1.
func exampleListen() net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	return ln
}
