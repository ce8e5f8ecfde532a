package guard

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/sitediag/sitediag/internal/porttest"
	"github.com/sitediag/sitediag/net/netx"
)

type literalResolver struct{}

func (literalResolver) LookupAddrs(_ context.Context, host string) ([]netip.Addr, error) {
	a, err := netip.ParseAddr(host)
	return []netip.Addr{a}, err
}

func loopbackGuard() *Guard {
	return New(literalResolver{}, NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}))
}

// TestBodyCapAfterDecompression: a small gzip body that inflates past the
// cap is cut off with netx.ErrBodyTooLarge; a body exactly at the cap is read
// whole.
func TestBodyCapAfterDecompression(t *testing.T) {
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/exact" {
			w.Write([]byte(strings.Repeat("x", 1000)))
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(zipped.Bytes())
	}))
	defer srv.Close()
	if zipped.Len() > 4000 {
		t.Fatalf("fixture: compressed body is %d bytes, want a small one", zipped.Len())
	}

	client := loopbackGuard().NewHTTPClient(HTTPOptions{MaxBodyBytes: 1000})
	defer client.CloseIdleConnections()
	resp, err := client.Get(srv.URL + "/bomb")
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if !errors.Is(err, netx.ErrBodyTooLarge) || n != 1000 {
		t.Fatalf("read %d bytes, err %v; want 1000 and netx.ErrBodyTooLarge", n, err)
	}

	resp, err = client.Get(srv.URL + "/exact")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || len(body) != 1000 {
		t.Fatalf("read %d bytes, err %v; want exactly 1000", len(body), err)
	}
}

// TestEnvironmentProxyIgnored: HTTP_PROXY must not divert a guarded
// client around the policy.
func TestEnvironmentProxyIgnored(t *testing.T) {
	proxy := porttest.Listen(t, porttest.Hangup)
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:"+strconv.Itoa(int(proxy.Port)))
	t.Setenv("http_proxy", "http://127.0.0.1:"+strconv.Itoa(int(proxy.Port)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	client := loopbackGuard().NewHTTPClient(HTTPOptions{})
	defer client.CloseIdleConnections()
	resp, err := client.Get(srv.URL)
	if proxy.Accepted() != 0 {
		t.Fatal("the request went to the environment's proxy")
	}
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// TestRedirectHopsAreGuarded: with a following client, a redirect to a
// refused address fails in the dialer.
func TestRedirectHopsAreGuarded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.2:1/", http.StatusFound)
	}))
	defer srv.Close()
	client := loopbackGuard().NewHTTPClient(HTTPOptions{
		CheckRedirect: func(*http.Request, []*http.Request) error { return nil },
	})
	defer client.CloseIdleConnections()
	_, err := client.Get(srv.URL)
	if !errors.Is(err, netx.ErrNotAllowed) {
		t.Fatalf("err = %v, want netx.ErrNotAllowed", err)
	}
}

// TestTransportPerScheme: an http:// request sets up no TLS transport; an
// https:// one gets its own, speaking HTTP/2 where the server does, and
// CloseIdleConnections closes both transports' connections.
func TestTransportPerScheme(t *testing.T) {
	closed := make(chan string, 2)
	track := func(srv *httptest.Server, name string) {
		srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateClosed {
				closed <- name
			}
		}
	}
	plain := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	track(plain, "plain")
	plain.Start()
	defer plain.Close()
	secure := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	secure.EnableHTTP2 = true
	track(secure, "secure")
	secure.StartTLS()
	defer secure.Close()

	client := loopbackGuard().NewHTTPClient(HTTPOptions{})
	ct := client.Transport.(*cappedTransport)
	resp, err := client.Get(plain.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct.plain == nil || ct.secure != nil || resp.ProtoMajor != 1 {
		t.Fatalf("after an http:// request: plain %v, TLS transport %v, HTTP/%d; want only a plain one, HTTP/1", ct.plain != nil, ct.secure != nil, resp.ProtoMajor)
	}
	resp, err = client.Get(secure.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct.secure == nil || resp.ProtoMajor != 2 {
		t.Fatalf("after an https:// request: TLS transport %v, HTTP/%d; want one, HTTP/2", ct.secure != nil, resp.ProtoMajor)
	}
	client.CloseIdleConnections()
	got := map[string]bool{}
	for range 2 {
		got[<-closed] = true
	}
	if !got["plain"] || !got["secure"] {
		t.Errorf("closed %v, want both servers' connections closed", got)
	}
}
