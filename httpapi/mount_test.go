package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sitediag/sitediag/httpapi"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/openapicheck"
)

// mountUnderDiag serves the API of a loopback client (apitest.LoopbackClient),
// with the key "k" and no rate limit, under /diag/ of a test server, its
// exchanges checked against its OpenAPI description; it stops when the
// test ends.
func mountUnderDiag(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/diag/", http.StripPrefix("/diag", openapicheck.Wrap(t, httpapi.New(apitest.LoopbackClient(t), httpapi.Options{
		APIKeys: []string{"k"}, RateLimit: -1, Logger: slog.New(slog.DiscardHandler),
	}))))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestMountedUnderPrefix: the handler works behind http.StripPrefix.
func TestMountedUnderPrefix(t *testing.T) {
	srv := mountUnderDiag(t)
	req, _ := http.NewRequest("GET", srv.URL+"/diag/health", nil)
	req.Header.Set("x-api-key", "k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /diag/health = %d", resp.StatusCode)
	}
	// The description names the server with its prefix, so that a
	// generated client calls /diag/up.
	resp, err = http.Get(srv.URL + "/diag/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Servers []struct{ URL string } }
	json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if len(doc.Servers) != 1 || doc.Servers[0].URL != srv.URL+"/diag" {
		t.Errorf("GET /diag/openapi.json: servers %+v, want %s/diag", doc.Servers, srv.URL)
	}
}

// A handler mounted under a prefix, with neither PublicURL nor Artifacts:
// the operations that produce files store them in the default store, and
// their links keep the prefix.
func TestMountedWithoutPublicURLOrStore(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><title>Mounted</title><meta name="description" content="a page">`)
	}))
	defer site.Close()
	srv := mountUnderDiag(t)

	post := func(t *testing.T, path string, body map[string]any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", srv.URL+path, bytes.NewReader(b))
		req.Header.Set("x-api-key", "k")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var env map[string]any
		json.NewDecoder(resp.Body).Decode(&env)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %d %v", path, resp.StatusCode, env)
		}
		return env
	}
	get := func(t *testing.T, env map[string]any) []byte {
		t.Helper()
		link, _ := env["data"].(string)
		if !strings.HasPrefix(link, srv.URL+"/diag/artifacts/") {
			t.Fatalf("data %q, want a link under %s/diag/artifacts/", link, srv.URL)
		}
		resp, err := http.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d, want 200", link, resp.StatusCode)
		}
		return body
	}
	t.Run("metascraping fileOutput", func(t *testing.T) {
		env := post(t, "/diag/metascraping", map[string]any{"url": site.URL + "/", "renderJS": false, "fileOutput": true})
		if body := get(t, env); !strings.Contains(string(body), "a page") {
			t.Errorf("artifact %q, want the page's metadata", body)
		}
	})
	t.Run("screenshot", func(t *testing.T) {
		needChromium(t)
		env := post(t, "/diag/screenshot", map[string]any{"url": site.URL + "/"})
		if format, _, _ := imageSize(t, get(t, env)); format != "png" {
			t.Errorf("artifact is %s, want png", format)
		}
	})
}
