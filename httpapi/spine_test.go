package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/blobstore"
	"github.com/sitediag/sitediag/httpapi"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/porttest"
)

func TestUp(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	base := serveAs(t, api, "site.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			http.Redirect(w, r, "/final", http.StatusMovedPermanently)
			return
		}
		w.WriteHeader(http.StatusTeapot)
	}))

	t.Run("follows redirects", func(t *testing.T) {
		resp := api.Post(t, "/up", map[string]any{"url": base + "/"})
		meta, data := resp.WantSuccess(t)
		if resp.Envelope["message"] != "Site is up" {
			t.Errorf("message = %v", resp.Envelope["message"])
		}
		delete(meta, "test")
		want := map[string]any{"url": hostOf(base), "proxyCountry": "", "followRedirect": true, "redirectedURL": base + "/final"}
		if diff := cmp.Diff(want, meta); diff != "" {
			t.Errorf("meta (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[string]any{"statusCode": 418.0, "reasonPhrase": "I'm a teapot"}, data); diff != "" {
			t.Errorf("data (-want +got):\n%s", diff)
		}
	})
	t.Run("first response only", func(t *testing.T) {
		resp := api.Post(t, "/up", map[string]any{"url": base, "followRedirect": false})
		meta, data := resp.WantSuccess(t)
		if meta["followRedirect"] != false || meta["redirectedURL"] != base+"/" {
			t.Errorf("meta = %v", meta)
		}
		if diff := cmp.Diff(map[string]any{"statusCode": 301.0, "reasonPhrase": "Moved Permanently"}, data); diff != "" {
			t.Errorf("data (-want +got):\n%s", diff)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		_, closedPort, _ := net.SplitHostPort(ln.Addr().String())
		ln.Close() // now the port refuses
		for url, why := range map[string]string{
			"http://site.test:" + closedPort + "/": "connection refused",
			"http://nowhere.test/":                 "name not resolved",
		} {
			resp := api.Post(t, "/up", map[string]any{"url": url})
			_, data := resp.WantSuccess(t)
			if resp.Envelope["message"] != "Unable to reach the URL." {
				t.Errorf("%s: message = %v", url, resp.Envelope["message"])
			}
			if diff := cmp.Diff(map[string]any{"statusCode": 0.0, "reasonPhrase": why}, data); diff != "" {
				t.Errorf("%s: data (-want +got):\n%s", url, diff)
			}
		}
	})
}

func TestRedirectCheck(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	api.DNS.Add(t, "site.test. 60 IN A 127.0.0.1")
	p := porttest.Raw(t, func(port string) map[string]string {
		return map[string]string{
			"/": "HTTP/1.1 301 Moved Permanently\r\nX-Zeta: 1\r\nLocation: /step?x=1\r\nSet-Cookie: a=1\r\n" +
				"Set-Cookie: b=2\r\nAlpha: first\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
			"/step": "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 307 Temporary Redirect\r\nlocation: http://site.test:" + port + "/end\r\n" +
				"Content-Length: 0\r\nConnection: close\r\n\r\n",
			"/end": "HTTP/1.1 200 OK\r\nServer: fixture\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
		}
	})
	base := "http://site.test:" + p
	resp := api.Post(t, "/redirectcheck", map[string]any{"url": base})
	meta, data := resp.WantSuccess(t)
	delete(meta, "test")
	if diff := cmp.Diff(map[string]any{"url": "site.test:" + p, "proxyCountry": ""}, meta); diff != "" {
		t.Errorf("meta (-want +got):\n%s", diff)
	}
	h := func(kv ...string) []any {
		var out []any
		for i := 0; i < len(kv); i += 2 {
			out = append(out, map[string]any{"name": kv[i], "value": kv[i+1]})
		}
		return out
	}
	want := []any{
		map[string]any{"url": base + "/", "status": 301.0, "headers": h("x-zeta", "1", "location", "/step?x=1",
			"set-cookie", "a=1", "set-cookie", "b=2", "alpha", "first", "content-length", "0", "connection", "close")},
		map[string]any{"url": base + "/step?x=1", "status": 307.0, "headers": h("location", base+"/end",
			"content-length", "0", "connection", "close")},
		map[string]any{"url": base + "/end", "status": 200.0, "headers": h("server", "fixture", "content-type", "text/plain",
			"content-length", "2", "connection", "close")},
	}
	if diff := cmp.Diff(want, data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
}

func TestRequestErrors(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	jsonHeaders := map[string]string{"x-api-key": apitest.Key, "Content-Type": "application/json"}

	t.Run("401", func(t *testing.T) {
		var bodies []string
		for _, key := range []string{"", "wrong", apitest.Key + "x"} {
			resp := api.Do(t, "POST", "/up", `{"url":"http://site.test/"}`, map[string]string{"x-api-key": key, "Content-Type": "application/json"})
			resp.WantError(t, 401, httpapi.CodeUnauthorized)
			if resp.Header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
			bodies = append(bodies, resp.Envelope["details"].(string))
		}
		if bodies[0] != bodies[1] || bodies[1] != bodies[2] {
			t.Errorf("401 bodies differ by key: %q", bodies)
		}
		api.Do(t, "GET", "/health", nil, nil).WantError(t, 401, httpapi.CodeUnauthorized)
	})
	t.Run("404", func(t *testing.T) {
		api.Do(t, "POST", "/nope", "{}", jsonHeaders).WantError(t, 404, httpapi.CodeNotFound)
		api.Do(t, "POST", "/up/", "{}", jsonHeaders).WantError(t, 404, httpapi.CodeNotFound)
	})
	t.Run("405", func(t *testing.T) {
		resp := api.Do(t, "GET", "/up", nil, jsonHeaders)
		resp.WantError(t, 405, httpapi.CodeMethodNotAllowed)
		if allow := resp.Header.Get("Allow"); !strings.Contains(allow, "POST") {
			t.Errorf("Allow = %q, want POST in it", allow)
		}
	})
	t.Run("415", func(t *testing.T) {
		for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded"} {
			api.Do(t, "POST", "/up", `{"url":"http://a.test/"}`, map[string]string{"x-api-key": apitest.Key, "Content-Type": ct}).
				WantError(t, 415, httpapi.CodeUnsupportedMediaType)
		}
	})
	t.Run("413", func(t *testing.T) {
		big := `{"url":"http://a.test/` + strings.Repeat("a", 70<<10) + `"}`
		api.Do(t, "POST", "/up", big, jsonHeaders).WantError(t, 413, httpapi.CodePayloadTooLarge)
	})
	t.Run("400", func(t *testing.T) {
		for body, field := range map[string]string{
			`{"url": 5}`: "url",
			`{"url": "http://a.test/", "followRedirect": 1}`: "followRedirect",
			`{"url": "http://a.test/", "extra": true}`:       "extra",
			`{"url": `:                     "body",
			`[1,2]`:                        "body",
			`{"url": "http://a.test/"} {}`: "body",
			`{"url":"https://a.example/","url":"https://b.example/"}`: "url",
		} {
			resp := api.Do(t, "POST", "/up", body, jsonHeaders)
			resp.WantError(t, 400, sitediag.CodeInvalidParameters)
			if d, _ := resp.Envelope["details"].(string); !strings.HasPrefix(d, field+":") {
				t.Errorf("%s: details %q do not name %q", body, d, field)
			}
		}
		api.Do(t, "POST", "/up", "", jsonHeaders).WantError(t, 400, sitediag.CodeInvalidURL)
		api.Do(t, "POST", "/up", `{"url":"http://a.test/","proxyCountry":"zz"}`, jsonHeaders).
			WantError(t, 400, sitediag.CodeProxyCountryUnsupported)
	})
}

func TestRateLimit(t *testing.T) {
	api := apitest.New(t, apitest.Options{HTTP: httpapi.Options{RateLimit: 1}})
	var limited *apitest.Response
	for range 4 {
		resp := api.Do(t, "GET", "/health", nil, map[string]string{"x-api-key": apitest.Key})
		if resp.Status == 429 {
			limited = resp
			break
		}
	}
	if limited == nil {
		t.Fatal("4 requests in a row at 1/s (burst 2) were never limited")
	}
	limited.WantError(t, 429, httpapi.CodeRateLimited)
	if ra, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("Retry-After = %q, want whole seconds >= 1", limited.Header.Get("Retry-After"))
	}
}

var testIDPattern = regexp.MustCompile(`^[0-9a-z]{32}$`)

func TestHealth(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	key := map[string]string{"x-api-key": apitest.Key}

	resp := api.Do(t, "GET", "/health", nil, key)
	if resp.Status != 200 {
		t.Fatalf("/health: %d %s", resp.Status, resp.Body)
	}
	if !testIDPattern.MatchString(resp.Header.Get("X-Request-Id")) {
		t.Errorf("X-Request-Id %q is not 32 base-36 characters", resp.Header.Get("X-Request-Id"))
	}
	delete(resp.Envelope, "timestamp")
	if diff := cmp.Diff(map[string]any{"apiStatus": "success", "apiCode": 200.0, "message": "API is healthy"}, resp.Envelope); diff != "" {
		t.Errorf("/health (-want +got):\n%s", diff)
	}

	resp = api.Do(t, "GET", "/health/service", nil, key)
	services := map[string]string{}
	for _, s := range resp.Envelope["services"].([]any) {
		m := s.(map[string]any)
		services[m["name"].(string)] = m["status"].(string)
	}
	for _, name := range []string{"resolver", "artifactStore"} {
		if services[name] != "healthy" {
			t.Errorf("service %s = %q, want healthy (%s)", name, services[name], resp.Body)
		}
	}

	resp = api.Do(t, "GET", "/livez", nil, nil)
	if resp.Status != 200 || string(resp.Body) != "ok\n" {
		t.Errorf("/livez: %d %q", resp.Status, resp.Body)
	}
}

func TestHEADRoutes(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	resp := api.Do(t, "HEAD", "/livez", nil, nil)
	if resp.Status != http.StatusOK || len(resp.Body) != 0 {
		t.Errorf("HEAD /livez: %d %q, want 200 and no body", resp.Status, resp.Body)
	}
	if resp := api.Do(t, "HEAD", "/health", nil, map[string]string{"x-api-key": apitest.Key}); resp.Status != http.StatusOK {
		t.Errorf("HEAD /health: %d, want 200", resp.Status)
	}
}

func TestArtifacts(t *testing.T) {
	store, err := blobstore.OpenDir(t.TempDir(), blobstore.Options{TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	api := apitest.New(t, apitest.Options{HTTP: httpapi.Options{Artifacts: store}})
	name, err := store.Put(context.Background(), "txt", strings.NewReader("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{32}\.txt$`).MatchString(name) {
		t.Errorf("name %q is not 128 random bits in hex", name)
	}
	resp := api.Do(t, "GET", "/artifacts/"+name, nil, nil)
	if resp.Status != 200 || string(resp.Body) != "hello" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("GET artifact: %d %q %q", resp.Status, resp.Body, resp.Header.Get("Content-Type"))
	}
	head := api.Do(t, "HEAD", "/artifacts/"+name, nil, nil)
	if head.Status != 200 || len(head.Body) != 0 || head.Header.Get("Content-Length") != "5" {
		t.Errorf("HEAD artifact: %d, body %q, Content-Length %q; want 200, no body, 5", head.Status, head.Body, head.Header.Get("Content-Length"))
	}
	for _, bad := range []string{"00000000000000000000000000000000.txt", "..%2f..%2fetc%2fpasswd", "x.txt"} {
		api.Do(t, "GET", "/artifacts/"+bad, nil, nil).WantError(t, 404, httpapi.CodeNotFound)
	}
	if err := store.Sweep(context.Background(), time.Now().Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	api.Do(t, "GET", "/artifacts/"+name, nil, nil).WantError(t, 404, httpapi.CodeNotFound)
}

// TestNoArtifactStore: without Options.Artifacts, and with no temporary
// directory to open one in, nothing is served from /artifacts/ and
// /health/service says the store is not configured.
func TestNoArtifactStore(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", notDir)
	client, err := sitediag.New(sitediag.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	srv := httptest.NewServer(httpapi.New(client, httpapi.Options{APIKeys: []string{"k"}, Logger: slog.New(slog.DiscardHandler)}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/artifacts/" + strings.Repeat("0", 32) + ".png")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("GET /artifacts/ without a store: %d, want 404", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/health/service", nil)
	req.Header.Set("x-api-key", "k")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"name":"artifactStore","status":"down","message":"not configured"`) {
		t.Errorf("/health/service without a store: %s", body)
	}
}
