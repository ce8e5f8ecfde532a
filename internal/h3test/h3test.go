// Package h3test runs a local HTTPS site for tests that speaks HTTP/1.1
// and HTTP/2 over TCP and advertises HTTP/3 with Alt-Svc, with a real
// quic-go HTTP/3 server behind the advertisement (or, for the failure
// case, a UDP port where nothing listens). Everything listens on
// 127.0.0.1 with random ports and a self-signed certificate.
package h3test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/quic-go/quic-go/http3"
)

// Site is a running site.
type Site struct {
	// TCP is the HTTPS server that carries the Alt-Svc advertisement.
	TCP *httptest.Server
	// Port is TCP's port.
	Port string
	// UDPPort is the port Alt-Svc points at.
	UDPPort string
	// H3 is the HTTP/3 server; nil when DeadUDP was asked for.
	H3 *http3.Server
}

// Options adjust a site. The zero value serves HTTP/3.
type Options struct {
	// DeadUDP advertises a UDP port where nothing listens.
	DeadUDP bool
	// AltSvc, if set, replaces the advertised value; every {port} in it
	// is the UDP port.
	AltSvc string
}

// Start serves handler over HTTPS (HTTP/1.1 and HTTP/2) and HTTP/3; both
// stop when the test ends. The TCP server adds the Alt-Svc header to
// every response.
func Start(t testing.TB, handler http.Handler, opts Options) *Site {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("h3test: %v", err)
	}
	_, udpPort, _ := net.SplitHostPort(pc.LocalAddr().String())
	site := &Site{UDPPort: udpPort}
	altSvc := opts.AltSvc
	if altSvc == "" {
		altSvc = `h3=":{port}"; ma=86400`
	}
	altSvc = strings.ReplaceAll(altSvc, "{port}", udpPort)

	site.TCP = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Alt-Svc", altSvc)
		handler.ServeHTTP(w, r)
	}))
	site.TCP.EnableHTTP2 = true
	site.TCP.StartTLS()
	t.Cleanup(site.TCP.Close)
	_, site.Port, _ = net.SplitHostPort(site.TCP.Listener.Addr().String())

	if opts.DeadUDP {
		pc.Close()
		return site
	}
	site.H3 = &http3.Server{
		Handler:   handler,
		TLSConfig: http3.ConfigureTLSConfig(site.TCP.TLS.Clone()),
	}
	go site.H3.Serve(pc)
	t.Cleanup(func() {
		site.H3.Close()
		pc.Close()
	})
	return site
}
