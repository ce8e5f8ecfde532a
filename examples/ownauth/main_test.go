package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/exampletest"
)

// TestOwnAuth mounts the operations in a plain ServeMux behind the
// application's bearer check, with no API key configured: the check
// decides, and a request it lets through runs the operation.
func TestOwnAuth(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "<title>site</title>")
	}))
	defer site.Close()
	app := httptest.NewServer(newMux(apitest.LoopbackClient(t), bearer("s3cret")))
	defer app.Close()

	up := func(auth, key string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", app.URL+"/diag/up", strings.NewReader(`{"url":"`+site.URL+`/"}`))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		if key != "" {
			req.Header.Set("x-api-key", key)
		}
		return exampletest.Do(t, req)
	}

	resp, body := up("Bearer s3cret", "")
	var env struct {
		APIStatus string `json:"apiStatus"`
		Data      struct {
			StatusCode int `json:"statusCode"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &env); err != nil || resp.StatusCode != 200 || env.APIStatus != "success" || env.Data.StatusCode != 200 {
		t.Fatalf("with the application's token: %d %s", resp.StatusCode, body)
	}

	for _, tc := range []struct{ name, auth, key string }{
		{"no credentials", "", ""},
		{"a wrong token", "Bearer nope", ""},
		{"an API key instead", "", "s3cret"},
	} {
		resp, body := up(tc.auth, tc.key)
		if resp.StatusCode != 401 || !strings.Contains(body, "sign in to the application first") ||
			resp.Header.Get("WWW-Authenticate") != `Bearer realm="app"` {
			t.Errorf("%s: %d %q, want the application's own 401", tc.name, resp.StatusCode, body)
		}
	}

	// The application's page, and the unkeyed routes, need no token.
	for path, want := range map[string]string{"/": "application's own page", "/diag/livez": "ok"} {
		if status, body := exampletest.Get(t, app.URL+path, ""); status != 200 || !strings.Contains(body, want) {
			t.Errorf("GET %s: %d %q", path, status, body)
		}
	}
	// Nothing of the default stack: no request id header.
	if resp, _ := up("Bearer s3cret", ""); resp.Header.Get("X-Request-Id") != "" {
		t.Errorf("Routes alone sent X-Request-Id %q; the default stack is not in front", resp.Header.Get("X-Request-Id"))
	}
}
