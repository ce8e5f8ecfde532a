package guard_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/guardtest"
	"github.com/sitediag/sitediag/internal/porttest"
	"github.com/sitediag/sitediag/internal/proxytest"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/netx"
)

func TestHTTPClientThroughProxy(t *testing.T) {
	backend, tlsBackend := fixture(t, false, "plain"), fixture(t, true, "tls")
	port := func(s *httptest.Server) string { return portOf(t, s.URL) }

	for _, tc := range []struct {
		name  string
		start func(testing.TB, proxytest.Options) *proxytest.Proxy
		opts  proxytest.Options
	}{
		{"connect", proxytest.StartConnect, proxytest.Options{}},
		{"connect with credentials", proxytest.StartConnect, proxytest.Options{User: "u", Password: "p w"}},
		{"socks5", proxytest.StartSOCKS5, proxytest.Options{}},
		{"socks5 with credentials", proxytest.StartSOCKS5, proxytest.Options{User: "u", Password: "secret"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := guardtest.New(t)
			proxy := tc.start(t, tc.opts)
			client := g.NewHTTPClient(guard.HTTPOptions{Proxy: proxy.URL})
			defer client.CloseIdleConnections()
			for _, srv := range []*httptest.Server{backend, tlsBackend} {
				scheme, want := "http", "plain"
				if srv.TLS != nil {
					scheme, want = "https", "tls"
				}
				target := scheme + "://site.test:" + port(srv) + "/"
				resp, body := get(t, client, target)
				if seen := resp.Header.Get("X-Seen-Host"); body != want || seen != "site.test:"+port(srv) {
					t.Errorf("GET %s: got %q from host %q, want %q from site.test:%s", target, body, seen, want, port(srv))
				}
			}
			// The proxy was asked for the checked address, never the name.
			want := []string{"127.0.0.1:" + port(backend), "127.0.0.1:" + port(tlsBackend)}
			if got := proxy.Targets(); !slices.Equal(got, want) {
				t.Errorf("proxy targets: got %v, want %v", got, want)
			}
		})
	}
}

func TestProxyNeverSeesRefusedTargets(t *testing.T) {
	for _, start := range []func(testing.TB, proxytest.Options) *proxytest.Proxy{proxytest.StartConnect, proxytest.StartSOCKS5} {
		g := guardtest.New(t)
		proxy := start(t, proxytest.Options{})
		dial := g.Dialer(proxy.URL)
		for _, addr := range []string{"private.test:80", "10.0.0.1:80", "169.254.169.254:80", "[::1]:80"} {
			_, err := dial(context.Background(), "tcp", addr)
			if !errors.Is(err, netx.ErrNotAllowed) {
				t.Errorf("%s via %s: got %v, want netx.ErrNotAllowed", addr, proxy.URL.Scheme, err)
			}
		}
		if got := proxy.Targets(); len(got) != 0 {
			t.Errorf("%s proxy was asked for %v, want nothing", proxy.URL.Scheme, got)
		}
	}
}

func TestProxyErrors(t *testing.T) {
	deadPort := strconv.Itoa(int(porttest.Closed(t)))
	dead := "127.0.0.1:" + deadPort

	g := guardtest.New(t)
	connect := proxytest.StartConnect(t, proxytest.Options{User: "u", Password: "p"})
	socks := proxytest.StartSOCKS5(t, proxytest.Options{User: "u", Password: "p"})
	wrongCreds := func(p *proxytest.Proxy) *url.URL {
		u := *p.URL
		u.User = url.UserPassword("u", "wrong")
		return &u
	}
	for _, tc := range []struct {
		name   string
		proxy  *url.URL
		target string
		check  func(error) bool
	}{
		{"connect: target refuses", connect.URL, "site.test:" + deadPort, func(err error) bool {
			var te *guard.TunnelError
			return errors.As(err, &te) && te.Status == http.StatusBadGateway
		}},
		{"socks5: target refuses", socks.URL, "site.test:" + deadPort, func(err error) bool {
			var te *guard.TunnelError
			return errors.As(err, &te)
		}},
		{"connect: wrong credentials", wrongCreds(connect), "site.test:" + deadPort, isProxyError},
		{"socks5: wrong credentials", wrongCreds(socks), "site.test:" + deadPort, isProxyError},
		{"proxy down", &url.URL{Scheme: "http", Host: dead}, "site.test:80", isProxyError},
		{"socks5 proxy down", &url.URL{Scheme: "socks5", Host: dead}, "site.test:80", isProxyError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			conn, err := g.Dialer(tc.proxy)(ctx, "tcp", tc.target)
			if err == nil {
				conn.Close()
			}
			if !tc.check(err) {
				t.Errorf("got %v (%T)", err, err)
			}
		})
	}
}

func isProxyError(err error) bool {
	var pe *netx.ProxyError
	return errors.As(err, &pe)
}

func TestProxiedConnReportsTarget(t *testing.T) {
	port := portOf(t, fixture(t, false, "").URL)
	g := guardtest.New(t)
	proxy := proxytest.StartConnect(t, proxytest.Options{})
	conn, err := g.Dialer(proxy.URL)(context.Background(), "tcp", "site.test:"+port)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if got, want := conn.RemoteAddr().String(), "127.0.0.1:"+port; got != want {
		t.Errorf("RemoteAddr: got %s, want %s", got, want)
	}
}
