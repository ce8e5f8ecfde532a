package portscan

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/porttest"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/netx"
)

var loopback = netip.MustParseAddr("127.0.0.1")

// allowLoopback is the guard's dialer with only 127.0.0.1 exempt.
func allowLoopback() netx.DialFunc {
	g := guard.New(&dns.Resolver{}, guard.NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}))
	return g.DialLiteral
}

func TestScanOpenAndClosed(t *testing.T) {
	var open, closed []uint16
	for range 5 {
		open = append(open, porttest.Listen(t, porttest.Silent).Port)
		closed = append(closed, porttest.Closed(t))
	}
	ports := append(slices.Clone(closed), open...)
	slices.Sort(ports)
	res, err := Scan(context.Background(), allowLoopback(), loopback, ports, Options{Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(open)
	if !slices.Equal(res.Open, open) {
		t.Fatalf("open = %v, want %v (closed: %v)", res.Open, open, closed)
	}
	if res.Services != nil {
		t.Errorf("services = %v without DetectServices", res.Services)
	}
}

func TestScanRefusedAddress(t *testing.T) {
	ln := porttest.Listen(t, porttest.Hangup)
	deny := guard.New(&dns.Resolver{}, guard.NewPolicy(nil)).DialLiteral
	_, err := Scan(context.Background(), deny, loopback, []uint16{ln.Port}, Options{})
	if !errors.Is(err, netx.ErrNotAllowed) {
		t.Fatalf("err = %v, want netx.ErrNotAllowed", err)
	}
	if n := ln.Accepted(); n != 0 {
		t.Fatalf("the refused listener accepted %d connections", n)
	}
}

func TestScanNoPorts(t *testing.T) {
	if _, err := Scan(context.Background(), allowLoopback(), loopback, nil, Options{}); !errors.Is(err, ErrNoPorts) {
		t.Fatalf("err = %v, want ErrNoPorts", err)
	}
}

func TestScanCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Scan(ctx, allowLoopback(), loopback, []uint16{porttest.Listen(t, porttest.Silent).Port}, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestDetectServices(t *testing.T) {
	banner := func(line string) func(net.Conn) {
		return func(conn net.Conn) {
			conn.Write([]byte(line))
			bufio.NewReader(conn).ReadString('\n')
		}
	}
	ssh := porttest.Listen(t, banner("SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n")).Port
	smtp := porttest.Listen(t, banner("220 mail.site.test ESMTP Postfix 3.7.11\r\n")).Port
	odd := porttest.Listen(t, banner("HELLO \x01\x02from a custom daemon\r\n")).Port
	quiet := porttest.Listen(t, porttest.Silent).Port

	withServer := func(h http.Header) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for k, v := range h {
				w.Header()[k] = v
			}
		})
	}
	web := httptest.NewServer(withServer(http.Header{"Server": {"nginx/1.25.3 (Debian)"}}))
	t.Cleanup(web.Close)
	tlsWeb := httptest.NewTLSServer(withServer(http.Header{"Server": {"Caddy"}}))
	t.Cleanup(tlsWeb.Close)
	portOf := func(s *httptest.Server) uint16 { return uint16(s.Listener.Addr().(*net.TCPAddr).Port) }

	want := map[uint16]ServiceInfo{
		ssh:            {Name: "ssh", Product: "OpenSSH", Version: "9.2p1", Banner: "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3"},
		smtp:           {Name: "smtp", Product: "Postfix", Version: "3.7.11", Banner: "220 mail.site.test ESMTP Postfix 3.7.11"},
		odd:            {Name: DefaultRanking().ServiceName(odd), Banner: "HELLO from a custom daemon"},
		quiet:          {Name: DefaultRanking().ServiceName(quiet)},
		portOf(web):    {Name: "http", Product: "nginx", Version: "1.25.3"},
		portOf(tlsWeb): {Name: "https", Product: "Caddy", TLS: true},
	}
	ports := make([]uint16, 0, len(want))
	for p := range want {
		ports = append(ports, p)
	}
	slices.Sort(ports)
	res, err := Scan(context.Background(), allowLoopback(), loopback, ports, Options{DetectServices: true, ServiceTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Open, ports) {
		t.Fatalf("open = %v, want %v", res.Open, ports)
	}
	if len(res.Services) != len(ports) {
		t.Fatalf("got %d services, want %d", len(res.Services), len(ports))
	}
	for i, s := range res.Services {
		if s.Port != ports[i] || s.State != "open" {
			t.Errorf("service %d: port %d state %q, want %d open", i, s.Port, s.State, ports[i])
		}
		if s.Service != want[s.Port] {
			t.Errorf("port %d: got %+v, want %+v", s.Port, s.Service, want[s.Port])
		}
	}
}

func TestProductVersion(t *testing.T) {
	tests := []struct{ in, product, version string }{
		{"nginx/1.25.3 (Debian)", "nginx", "1.25.3"},
		{"Apache", "Apache", ""},
		{"", "", ""},
		{"  cloudflare  ", "cloudflare", ""},
	}
	for _, tt := range tests {
		p, v := productVersion(tt.in)
		if p != tt.product || v != tt.version {
			t.Errorf("productVersion(%q) = %q %q, want %q %q", tt.in, p, v, tt.product, tt.version)
		}
	}
}
