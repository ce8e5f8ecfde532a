package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/sitediag/sitediag/httpapi"
	"github.com/sitediag/sitediag/internal/apitest"
)

func TestCORS(t *testing.T) {
	const app = "https://app.example"
	preflight := map[string]string{"Origin": app, "Access-Control-Request-Method": "POST",
		"Access-Control-Request-Headers": "content-type, x-api-key"}

	t.Run("off by default", func(t *testing.T) {
		api := apitest.New(t, apitest.Options{})
		for _, resp := range []*apitest.Response{
			api.Do(t, "OPTIONS", "/up", nil, preflight),
			api.Do(t, "GET", "/health", nil, map[string]string{"x-api-key": apitest.Key, "Origin": app}),
		} {
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "" {
				t.Errorf("Access-Control-Allow-Origin %q without CORSOrigins", got)
			}
		}
	})
	t.Run("configured", func(t *testing.T) {
		api := apitest.New(t, apitest.Options{HTTP: httpapi.Options{CORSOrigins: []string{app + "/"}}})
		resp := api.Do(t, "OPTIONS", "/up", nil, preflight)
		h := resp.Header
		if resp.Status != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != app ||
			h.Get("Access-Control-Allow-Methods") != "GET, HEAD, POST" || h.Get("Access-Control-Allow-Headers") != "Content-Type, X-Api-Key" {
			t.Errorf("preflight: %d %v", resp.Status, h)
		}
		resp = api.Post(t, "/up", `{"url":"http://127.0.0.1:1/"}`)
		if resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Error("a request without Origin got CORS headers")
		}
		resp = api.Do(t, "GET", "/health", nil, map[string]string{"x-api-key": apitest.Key, "Origin": app})
		if resp.Status != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != app ||
			resp.Header.Get("Access-Control-Expose-Headers") != "X-Request-Id, Retry-After" {
			t.Errorf("GET with Origin: %d %v", resp.Status, resp.Header)
		}
		other := map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}
		if resp := api.Do(t, "OPTIONS", "/up", nil, other); resp.Header.Get("Access-Control-Allow-Origin") != "" || resp.Status == http.StatusNoContent {
			t.Errorf("another origin's preflight: %d %v", resp.Status, resp.Header)
		}
	})
}
