package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sitediag/sitediag/internal/apitest"
)

func TestTTFB(t *testing.T) {
	api := newAPI(t, apitest.Options{})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) })
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/new", http.StatusFound) })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for _, tc := range []struct {
		name       string
		body       map[string]any
		follow     bool
		redirected string
	}{
		{"default: no follow", map[string]any{"url": siteURL(srv, "/old")}, false, siteURL(srv, "/old")},
		{"follow", map[string]any{"url": siteURL(srv, "/old"), "followRedirect": true}, true, siteURL(srv, "/new")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			meta, data := api.Post(t, "/ttfb", tc.body).WantSuccess(t)
			if ms, ok := data.(float64); !ok || ms <= 0 {
				t.Errorf("data: got %v, want a positive number of milliseconds", data)
			}
			if meta["url"] != siteURL(srv, "/old") || meta["redirectedURL"] != tc.redirected || meta["followRedirect"] != tc.follow {
				t.Errorf("meta: got %v, want url %s, redirectedURL %s, followRedirect %v", meta, siteURL(srv, "/old"), tc.redirected, tc.follow)
			}
		})
	}
}
