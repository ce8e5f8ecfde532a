package guard_test

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/guardtest"
	"github.com/sitediag/sitediag/internal/porttest"
	"github.com/sitediag/sitediag/internal/proxytest"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/netx"
)

// newGuard returns guardtest's guard (127.0.0.1 allowed, site.test on
// it), where evil.test is 127.0.0.2.
func newGuard(t *testing.T) *guard.Guard {
	t.Helper()
	return guardtest.New(t, "evil.test. 60 IN A 127.0.0.2")
}

// forbidden is a listener on an address the policy refuses; it counts
// every connection it is offered.
type forbidden struct{ *porttest.Listener }

func listenForbidden(t *testing.T) forbidden {
	t.Helper()
	return forbidden{porttest.ListenOn(t, "127.0.0.2", porttest.Hangup)}
}

func (f forbidden) port() string { return strconv.Itoa(int(f.Port)) }

func listenProxy(t *testing.T, g *guard.Guard, opts netx.ProxyOptions) *guard.Proxy {
	t.Helper()
	p, err := g.ListenProxy(opts)
	if err != nil {
		t.Fatalf("ListenProxy: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// proxiedClient sends every request through p.
func proxiedClient(t *testing.T, p *guard.Proxy) *http.Client {
	t.Helper()
	u, _ := url.Parse(p.URL())
	tr := &http.Transport{Proxy: http.ProxyURL(u), TLSClientConfig: insecure()}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// fixture serves body on 127.0.0.1, over TLS when secure, until the
// test ends; X-Seen-Host names the Host it was asked for.
func fixture(t *testing.T, secure bool, body string) *httptest.Server {
	t.Helper()
	start := httptest.NewServer
	if secure {
		start = httptest.NewTLSServer
	}
	srv := start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Seen-Host", r.Host)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// get fetches target with client and returns the response and its body.
func get(t *testing.T, client *http.Client, target string) (*http.Response, string) {
	t.Helper()
	resp, err := client.Get(target)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

func portOf(t *testing.T, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

func TestProxyForwardsAllowedTargets(t *testing.T) {
	g := newGuard(t)
	p := listenProxy(t, g, netx.ProxyOptions{})
	srv := fixture(t, false, "hello")
	client := proxiedClient(t, p)
	for _, target := range []string{
		srv.URL + "/",
		"http://site.test:" + portOf(t, srv.URL) + "/",
		"http://SITE.test.:" + portOf(t, srv.URL) + "/",
	} {
		if resp, body := get(t, client, target); resp.StatusCode != http.StatusOK || body != "hello" {
			t.Errorf("GET %s: got %d %q, want 200 hello", target, resp.StatusCode, body)
		}
	}
	if got := p.Stats(); got != (guard.ProxyStats{}) {
		t.Errorf("stats = %+v, want none refused", got)
	}
}

func TestProxyTunnelsTLS(t *testing.T) {
	g := newGuard(t)
	p := listenProxy(t, g, netx.ProxyOptions{})
	srv := fixture(t, true, "secure")
	if _, body := get(t, proxiedClient(t, p), "https://site.test:"+portOf(t, srv.URL)+"/"); body != "secure" {
		t.Errorf("got %q through CONNECT, want secure", body)
	}
}

func TestProxyRefusesWhatThePolicyDenies(t *testing.T) {
	g := newGuard(t)
	p := listenProxy(t, g, netx.ProxyOptions{})
	f := listenForbidden(t)
	client := proxiedClient(t, p)
	targets := []string{
		"http://127.0.0.2:" + f.port() + "/",
		"http://evil.test:" + f.port() + "/",
		"http://[::ffff:127.0.0.2]:" + f.port() + "/",
		"http://[::1]:" + f.port() + "/",
		"https://127.0.0.2:" + f.port() + "/",
		"https://evil.test:" + f.port() + "/",
	}
	for _, target := range targets {
		resp, err := client.Get(target)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("GET %s: got %d, want 403", target, resp.StatusCode)
			}
		} else if !strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("GET %s: got %v, want the proxy's 403", target, err)
		}
	}
	if n := f.Accepted(); n != 0 {
		t.Errorf("the refused listener saw %d connections, want 0", n)
	}
	if got := p.Stats().Refused; got != len(targets) {
		t.Errorf("Refused = %d, want %d", got, len(targets))
	}
	for _, host := range []string{"evil.test", "EVIL.test."} {
		if err := p.Failure(host, mustPort(t, f.port())); !errors.Is(err, netx.ErrNotAllowed) {
			t.Errorf("Failure(%s) = %v, want netx.ErrNotAllowed", host, err)
		}
	}
}

func mustPort(t *testing.T, s string) uint16 {
	t.Helper()
	var port uint16
	if _, err := fmt.Sscan(s, &port); err != nil {
		t.Fatal(err)
	}
	return port
}

func TestProxyReportsUnresolvedAndUnreachable(t *testing.T) {
	g := newGuard(t)
	p := listenProxy(t, g, netx.ProxyOptions{})
	client := proxiedClient(t, p)

	resp, err := client.Get("http://missing.test/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("unresolved: got %d, want 502", resp.StatusCode)
	}
	var re *guard.ResolveError
	if err := p.Failure("missing.test", 80); !errors.As(err, &re) {
		t.Errorf("Failure(missing.test) = %v, want a *ResolveError", err)
	}

	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closedPort := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	resp, err = client.Get(fmt.Sprintf("http://site.test:%d/", closedPort))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("refused port: got %d, want 502", resp.StatusCode)
	}
	if err := p.Failure("site.test", uint16(closedPort)); err == nil || errors.Is(err, netx.ErrNotAllowed) {
		t.Errorf("Failure(closed port) = %v, want a dial error", err)
	}
	if got := p.Stats(); got.Failed != 2 || got.Refused != 0 {
		t.Errorf("stats = %+v, want 2 failed", got)
	}
}

func TestProxyBlockListAndRefuseAll(t *testing.T) {
	g := newGuard(t)
	srv := fixture(t, false, "ok")
	port := portOf(t, srv.URL)
	blocking := listenProxy(t, g, netx.ProxyOptions{Block: func(host string) bool { return host == "site.test" }})
	client := proxiedClient(t, blocking)
	for target, want := range map[string]int{
		"http://site.test:" + port + "/": http.StatusForbidden,
		"http://127.0.0.1:" + port + "/": http.StatusOK,
	} {
		resp, err := client.Get(target)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: got %d, want %d", target, resp.StatusCode, want)
		}
	}
	if got := blocking.Stats(); got.Blocked != 1 || got.Refused != 0 {
		t.Errorf("stats = %+v, want 1 blocked", got)
	}
	if err := blocking.Failure("site.test", mustPort(t, port)); !errors.Is(err, netx.ErrBlocked) {
		t.Errorf("Failure = %v, want netx.ErrBlocked", err)
	}

	none := listenProxy(t, g, netx.ProxyOptions{RefuseAll: true})
	resp, err := proxiedClient(t, none).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || none.Stats().Refused != 1 {
		t.Errorf("RefuseAll: got %d and %+v, want 403 and 1 refused", resp.StatusCode, none.Stats())
	}
}

// echoUpgrade answers an Upgrade request with 101 and then echoes.
func echoUpgrade(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "echo" || r.Header.Get("Proxy-Connection") != "" {
			http.Error(w, "want an upgrade without proxy headers", http.StatusBadRequest)
			return
		}
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		io.WriteString(conn, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
		io.Copy(conn, buf)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// dialProxy opens a raw connection to p, closed when the test ends.
func dialProxy(t *testing.T, p *guard.Proxy) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	return conn
}

func TestProxyUpgradesInAbsoluteForm(t *testing.T) {
	g := newGuard(t)
	p := listenProxy(t, g, netx.ProxyOptions{})
	srv := echoUpgrade(t)
	conn := dialProxy(t, p)
	fmt.Fprintf(conn, "GET http://site.test:%s/ws HTTP/1.1\r\nHost: site.test:%s\r\nConnection: Upgrade\r\nUpgrade: echo\r\nProxy-Connection: keep-alive\r\n\r\n",
		portOf(t, srv.URL), portOf(t, srv.URL))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("got %d, want 101", resp.StatusCode)
	}
	io.WriteString(conn, "ping")
	got := make([]byte, 4)
	if _, err := io.ReadFull(br, got); err != nil || string(got) != "ping" {
		t.Errorf("echo: got %q, %v; want ping", got, err)
	}
}

// WebSocket upgrades and raw tunnels to refused addresses are refused
// before anything is dialled, and counted, like plain requests.
func TestProxyRefusesUpgradesAndTunnels(t *testing.T) {
	g := newGuard(t)
	p := listenProxy(t, g, netx.ProxyOptions{})
	f := listenForbidden(t)
	requests := []string{
		"GET http://evil.test:%[1]s/ws HTTP/1.1\r\nHost: evil.test:%[1]s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
		"GET https://127.0.0.2:%[1]s/ws HTTP/1.1\r\nHost: 127.0.0.2:%[1]s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
		"CONNECT 127.0.0.2:%[1]s HTTP/1.1\r\nHost: 127.0.0.2:%[1]s\r\n\r\n",
		"CONNECT evil.test:%[1]s HTTP/1.1\r\nHost: evil.test:%[1]s\r\n\r\n",
		"CONNECT [::ffff:127.0.0.2]:%[1]s HTTP/1.1\r\nHost: [::ffff:127.0.0.2]:%[1]s\r\n\r\n",
	}
	for _, format := range requests {
		req := fmt.Sprintf(format, f.port())
		conn := dialProxy(t, p)
		io.WriteString(conn, req)
		resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: strings.Fields(req)[0]})
		if err != nil {
			t.Errorf("%q: %v", req, err)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%q: got %d, want 403", req, resp.StatusCode)
		}
	}
	if n := f.Accepted(); n != 0 {
		t.Errorf("the refused listener saw %d connections, want 0", n)
	}
	if got := p.Stats().Refused; got != len(requests) {
		t.Errorf("Refused = %d, want %d", got, len(requests))
	}
}

func TestProxyCloseCutsTunnels(t *testing.T) {
	g := newGuard(t)
	p, err := g.ListenProxy(netx.ProxyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv := echoUpgrade(t)
	conn := dialProxy(t, p)
	fmt.Fprintf(conn, "CONNECT site.test:%s HTTP/1.1\r\nHost: site.test:%s\r\n\r\n", portOf(t, srv.URL), portOf(t, srv.URL))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	for range 2 {
		if err := p.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	if _, err := br.ReadByte(); err == nil {
		t.Error("the tunnel still carries data after Close")
	}
}

func TestProxyChainsAnUpstream(t *testing.T) {
	srv, tlsSrv := fixture(t, false, "plain"), fixture(t, true, "tls")
	port, tlsPort := portOf(t, srv.URL), portOf(t, tlsSrv.URL)
	for _, up := range []*proxytest.Proxy{
		proxytest.StartConnect(t, proxytest.Options{User: "user", Password: "secret"}),
		proxytest.StartSOCKS5(t, proxytest.Options{}),
	} {
		t.Run(up.URL.Scheme, func(t *testing.T) {
			g := newGuard(t)
			f := listenForbidden(t)
			p := listenProxy(t, g, netx.ProxyOptions{Upstream: up.URL})
			client := proxiedClient(t, p)
			for target, want := range map[string]string{
				"http://site.test:" + port + "/":     "plain",
				"https://site.test:" + tlsPort + "/": "tls",
			} {
				if resp, body := get(t, client, target); body != want {
					t.Errorf("GET %s: got %d %q, want %q", target, resp.StatusCode, body, want)
				}
			}
			resp, err := client.Get("http://evil.test:" + f.port() + "/")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("refused target through the upstream: got %d, want 403", resp.StatusCode)
			}
			got := up.Targets()
			slices.Sort(got)
			want := []string{"127.0.0.1:" + port, "127.0.0.1:" + tlsPort}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("the upstream was asked for %q, want %q (checked addresses, never the refused target)", got, want)
			}
		})
	}
}

func TestListenProxyRefusesABadUpstream(t *testing.T) {
	g := newGuard(t)
	if _, err := g.ListenProxy(netx.ProxyOptions{Upstream: &url.URL{Scheme: "ftp", Host: "x:21"}}); err == nil {
		t.Error("ListenProxy accepted an ftp upstream")
	}
}

// insecure skips certificate checks for the test's own TLS fixtures.
func insecure() *tls.Config { return &tls.Config{InsecureSkipVerify: true} }
