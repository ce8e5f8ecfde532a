package httpprobe_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/guardtest"
	"github.com/sitediag/sitediag/internal/h3test"
	"github.com/sitediag/sitediag/internal/proxytest"
	"github.com/sitediag/sitediag/net/httpprobe"
	"github.com/sitediag/sitediag/net/netx"
)

var hello = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) })

func TestProtocols(t *testing.T) {
	g := guardtest.New(t)

	h2 := httptest.NewUnstartedServer(hello)
	h2.EnableHTTP2 = true
	h2.StartTLS()
	defer h2.Close()
	h1 := httptest.NewTLSServer(hello)
	defer h1.Close()
	plain := httptest.NewServer(hello)
	defer plain.Close()
	h2c := httptest.NewUnstartedServer(hello)
	h2c.Config.Protocols = new(http.Protocols)
	h2c.Config.Protocols.SetHTTP1(true)
	h2c.Config.Protocols.SetUnencryptedHTTP2(true)
	h2c.Start()
	defer h2c.Close()
	no10 := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMinor == 0 {
			w.WriteHeader(http.StatusHTTPVersionNotSupported)
		}
	}))
	defer no10.Close()
	h3 := h3test.Start(t, hello, h3test.Options{})
	h3dead := h3test.Start(t, hello, h3test.Options{DeadUDP: true})
	h3drafts := h3test.Start(t, hello, h3test.Options{AltSvc: `h3-29=":{port}", h3=":{port}"; ma=60, h2=":443"`})
	h3elsewhere := h3test.Start(t, hello, h3test.Options{AltSvc: `h3="private.test:{port}"`})
	draftsOnly := h3test.Start(t, hello, h3test.Options{AltSvc: `h3-29=":{port}"`})

	for _, tc := range []struct {
		name   string
		target *url.URL
		want   httpprobe.ProtocolSupport
	}{
		{"TLS with HTTP/2", siteURL(t, h2, "/"), httpprobe.ProtocolSupport{HTTP10: true, HTTP11: true, HTTP2: true}},
		{"TLS, HTTP/1.1 only", siteURL(t, h1, "/"), httpprobe.ProtocolSupport{HTTP10: true, HTTP11: true}},
		{"plain HTTP/1.1", siteURL(t, plain, "/"), httpprobe.ProtocolSupport{HTTP10: true, HTTP11: true}},
		{"plain with h2c", siteURL(t, h2c, "/"), httpprobe.ProtocolSupport{HTTP10: true, HTTP11: true, HTTP2: true}},
		{"refuses HTTP/1.0", siteURL(t, no10, "/"), httpprobe.ProtocolSupport{HTTP11: true}},
		{"HTTP/3 advertised and served", siteURL(t, h3.TCP, "/"),
			httpprobe.ProtocolSupport{HTTP10: true, HTTP11: true, HTTP2: true, HTTP3: true, HTTP3SupportedVersion: []string{"h3"}}},
		{"HTTP/3 advertised on a dead UDP port", siteURL(t, h3dead.TCP, "/"), httpprobe.ProtocolSupport{HTTP10: true, HTTP11: true, HTTP2: true}},
		{"HTTP/3 and a draft advertised", siteURL(t, h3drafts.TCP, "/"),
			httpprobe.ProtocolSupport{HTTP10: true, HTTP11: true, HTTP2: true, HTTP3: true, HTTP3SupportedVersion: []string{"h3-29", "h3"}}},
		{"HTTP/3 advertised on a refused host", siteURL(t, h3elsewhere.TCP, "/"), httpprobe.ProtocolSupport{HTTP10: true, HTTP11: true, HTTP2: true}},
		{"only a draft advertised", siteURL(t, draftsOnly.TCP, "/"), httpprobe.ProtocolSupport{HTTP10: true, HTTP11: true, HTTP2: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := httpprobe.Protocols(context.Background(), g.DialContext, g, tc.target, httpprobe.ProtocolOptions{Timeout: 3 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want.HTTP3SupportedVersion == nil {
				tc.want.HTTP3SupportedVersion = []string{}
			}
			if !equalSupport(*got, tc.want) {
				t.Errorf("got %+v, want %+v", *got, tc.want)
			}
		})
	}
}

func equalSupport(a, b httpprobe.ProtocolSupport) bool {
	return a.HTTP10 == b.HTTP10 && a.HTTP11 == b.HTTP11 && a.HTTP2 == b.HTTP2 && a.HTTP3 == b.HTTP3 &&
		slices.Equal(a.HTTP3SupportedVersion, b.HTTP3SupportedVersion)
}

func TestProtocolsThroughProxy(t *testing.T) {
	g := guardtest.New(t)
	proxy := proxytest.StartConnect(t, proxytest.Options{})
	h3 := h3test.Start(t, hello, h3test.Options{DeadUDP: true})
	target := siteURL(t, h3.TCP, "/")
	// Without UDP (a proxy carries TCP only) HTTP/3 is the advertisement.
	got, err := httpprobe.Protocols(context.Background(), g.Dialer(proxy.URL), nil, target, httpprobe.ProtocolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := httpprobe.ProtocolSupport{HTTP10: true, HTTP11: true, HTTP2: true, HTTP3: true, HTTP3SupportedVersion: []string{"h3"}}
	if !equalSupport(*got, want) {
		t.Errorf("got %+v, want %+v", *got, want)
	}
	if n := len(proxy.Targets()); n != 3 {
		t.Errorf("the proxy carried %d connections, want 3 (HTTP/1.0, HTTP/1.1, HTTP/2)", n)
	}
}

func TestProtocolsErrors(t *testing.T) {
	g := guardtest.New(t)
	ctx := context.Background()
	_, err := httpprobe.Protocols(ctx, g.DialContext, g, &url.URL{Scheme: "http", Host: "site.test:" + deadPort(t), Path: "/"}, httpprobe.ProtocolOptions{})
	var fetchErr *httpprobe.FetchError
	if !errors.As(err, &fetchErr) {
		t.Errorf("refused port: got %v, want a *FetchError", err)
	}
	_, err = httpprobe.Protocols(ctx, g.DialContext, g, &url.URL{Scheme: "https", Host: "private.test", Path: "/"}, httpprobe.ProtocolOptions{})
	if !errors.Is(err, netx.ErrNotAllowed) {
		t.Errorf("refused host: got %v, want netx.ErrNotAllowed", err)
	}
}
