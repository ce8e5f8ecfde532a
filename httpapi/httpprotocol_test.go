package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/h3test"
)

func TestHTTPProtocol(t *testing.T) {
	api := newAPI(t, apitest.Options{})
	hello := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) })
	h2 := httptest.NewUnstartedServer(hello)
	h2.EnableHTTP2 = true
	h2.StartTLS()
	t.Cleanup(h2.Close)
	h1 := httptest.NewTLSServer(hello)
	t.Cleanup(h1.Close)
	h3 := h3test.Start(t, hello, h3test.Options{})
	h3dead := h3test.Start(t, hello, h3test.Options{DeadUDP: true})
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, siteURL(h3.TCP, "/"), http.StatusFound)
	}))
	t.Cleanup(redirect.Close)

	for _, tc := range []struct {
		name       string
		body       map[string]any
		redirected string
		want       map[string]any
	}{
		{"HTTP/2 over TLS", map[string]any{"url": siteURL(h2, "/")}, siteURL(h2, "/"),
			map[string]any{"http10": true, "http11": true, "http2": true, "http3": false, "http3SupportedVersion": []any{}}},
		{"HTTP/1.1 only", map[string]any{"url": siteURL(h1, "/")}, siteURL(h1, "/"),
			map[string]any{"http10": true, "http11": true, "http2": false, "http3": false, "http3SupportedVersion": []any{}}},
		{"HTTP/3 advertised and served", map[string]any{"url": siteURL(h3.TCP, "/")}, siteURL(h3.TCP, "/"),
			map[string]any{"http10": true, "http11": true, "http2": true, "http3": true, "http3SupportedVersion": []any{"h3"}}},
		{"HTTP/3 advertised on a dead UDP port", map[string]any{"url": siteURL(h3dead.TCP, "/")}, siteURL(h3dead.TCP, "/"),
			map[string]any{"http10": true, "http11": true, "http2": true, "http3": false, "http3SupportedVersion": []any{}}},
		{"redirect followed to HTTP/3", map[string]any{"url": siteURL(redirect, "/"), "followRedirect": true}, siteURL(h3.TCP, "/"),
			map[string]any{"http10": true, "http11": true, "http2": true, "http3": true, "http3SupportedVersion": []any{"h3"}}},
		{"redirect not followed", map[string]any{"url": siteURL(redirect, "/")}, siteURL(redirect, "/"),
			map[string]any{"http10": true, "http11": true, "http2": false, "http3": false, "http3SupportedVersion": []any{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			meta, data := api.Post(t, "/httpprotocol", tc.body).WantSuccess(t)
			if !reflect.DeepEqual(data, tc.want) {
				t.Errorf("data: got %v, want %v", data, tc.want)
			}
			if meta["url"] != tc.body["url"] || meta["redirectedURL"] != tc.redirected {
				t.Errorf("meta: got %v, want url %v, redirectedURL %s", meta, tc.body["url"], tc.redirected)
			}
		})
	}
}
