// Package apitest drives the real HTTP handler in tests: a sitediag
// client whose resolver is a local DNS server (dnstest) and whose SSRF
// policy exempts only the loopback addresses a test names, mounted in
// httpapi with a known key. Every exchange is checked against the
// handler's OpenAPI description (openapicheck).
package apitest

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/blobstore"
	"github.com/sitediag/sitediag/httpapi"
	"github.com/sitediag/sitediag/internal/dnstest"
	"github.com/sitediag/sitediag/internal/openapicheck"
)

// update rewrites the golden files instead of comparing with them.
var update = flag.Bool("update", false, "rewrite the golden files of apitest.WantGolden")

// Key is the API key the test handler accepts.
const Key = "test-key"

// API is a running handler and the fixtures behind it.
type API struct {
	// DNS resolves names for the client; add records with DNS.Add.
	DNS *dnstest.Server
	// Client is the sitediag client behind the handler.
	Client *sitediag.Client
	// Handler is the API handler Server serves.
	Handler *httpapi.Handler
	// Server serves the handler.
	Server *httptest.Server

	check *openapicheck.Handler
}

// Options adjust the test API. The zero value allows 127.0.0.1 only.
type Options struct {
	// Allow lists the networks exempt from the deny table; if empty,
	// 127.0.0.1/32.
	Allow []netip.Prefix
	// Config is the client configuration; DNSServers and AllowNetworks
	// are filled in.
	Config sitediag.Config
	// HTTP are the handler options; APIKeys, Artifacts and RateLimit
	// (no limit) are filled in when empty.
	HTTP httpapi.Options
}

// LoopbackClient returns a client with the default configuration but
// for its SSRF policy, which exempts 127.0.0.1; it closes when the test
// ends.
func LoopbackClient(t testing.TB) *sitediag.Client {
	t.Helper()
	client, err := sitediag.New(sitediag.Config{AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	if err != nil {
		t.Fatalf("apitest: %v", err)
	}
	t.Cleanup(func() { client.Close() })
	return client
}

// New starts a DNS server, a client and the handler; all stop when the
// test ends.
func New(t testing.TB, opts Options) *API {
	t.Helper()
	dns := dnstest.Start(t)
	cfg := opts.Config
	cfg.DNSServers = []string{dns.Addr}
	cfg.AllowNetworks = opts.Allow
	if len(cfg.AllowNetworks) == 0 {
		cfg.AllowNetworks = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	}
	client, err := sitediag.New(cfg)
	if err != nil {
		t.Fatalf("apitest: %v", err)
	}
	t.Cleanup(func() { client.Close() })
	hopts := opts.HTTP
	if hopts.APIKeys == nil {
		hopts.APIKeys = []string{Key}
	}
	if hopts.Logger == nil {
		hopts.Logger = slog.New(slog.DiscardHandler)
	}
	if hopts.RateLimit == 0 {
		hopts.RateLimit = -1
	}
	if hopts.Artifacts == nil {
		store, err := blobstore.OpenDir(t.TempDir(), blobstore.Options{})
		if err != nil {
			t.Fatalf("apitest: %v", err)
		}
		t.Cleanup(func() { store.Close() })
		hopts.Artifacts = store
	}
	handler := httpapi.New(client, hopts)
	check := openapicheck.Wrap(t, handler)
	srv := httptest.NewServer(check)
	t.Cleanup(srv.Close)
	api := &API{DNS: dns, Client: client, Handler: handler, Server: srv, check: check}
	suite.Lock()
	suite.apis = append(suite.apis, api)
	suite.Unlock()
	return api
}

// Response is a decoded API response.
type Response struct {
	Status int
	Header http.Header
	// Body is the raw body; Envelope the same decoded into a map.
	Body     []byte
	Envelope map[string]any
}

// Post sends body (marshalled to JSON unless it is a string or []byte)
// to path with the test key.
func (a *API) Post(t testing.TB, path string, body any) *Response {
	t.Helper()
	return a.Do(t, http.MethodPost, path, body, map[string]string{"x-api-key": Key, "Content-Type": "application/json"})
}

// Do sends a request with exactly the given headers.
func (a *API) Do(t testing.TB, method, path string, body any, headers map[string]string) *Response {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = bytes.NewBufferString(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("apitest: %v", err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, a.Server.URL+path, r)
	if err != nil {
		t.Fatalf("apitest: %v", err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := a.Server.Client().Do(req)
	if err != nil {
		t.Fatalf("apitest: %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("apitest: %v", err)
	}
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
	if len(data) > 0 && resp.Header.Get("Content-Type") == "application/json" {
		if err := json.Unmarshal(data, &out.Envelope); err != nil {
			t.Fatalf("apitest: body is not JSON: %v\n%s", err, data)
		}
	}
	return out
}

// WantError fails the test unless the response is the error envelope with
// status and code.
func (r *Response) WantError(t testing.TB, status int, code sitediag.Code) {
	t.Helper()
	if r.Status != status || r.Envelope["message"] != string(code) || r.Envelope["apiStatus"] != "failure" ||
		r.Envelope["apiCode"] != float64(status) {
		t.Fatalf("got %d %s, want %d %s", r.Status, r.Body, status, code)
	}
	if d, _ := r.Envelope["details"].(string); d == "" {
		t.Errorf("error envelope has no details: %s", r.Body)
	}
}

// WantErrorDetails is WantError that also wants the envelope's details
// to contain details.
func (r *Response) WantErrorDetails(t testing.TB, status int, code sitediag.Code, details string) {
	t.Helper()
	r.WantError(t, status, code)
	if d, _ := r.Envelope["details"].(string); !strings.Contains(d, details) {
		t.Errorf("details %q do not mention %q", d, details)
	}
}

// WantSuccess fails the test unless the response is a success envelope
// with a test id in meta, and returns meta and data.
func (r *Response) WantSuccess(t testing.TB) (meta map[string]any, data any) {
	t.Helper()
	if r.Status != http.StatusOK || r.Envelope["apiStatus"] != "success" || r.Envelope["apiCode"] != float64(200) {
		t.Fatalf("got %d %s, want a success envelope", r.Status, r.Body)
	}
	meta, _ = r.Envelope["meta"].(map[string]any)
	test, _ := meta["test"].(map[string]any)
	if id, _ := test["id"].(string); id == "" || id != r.Header.Get("X-Request-Id") {
		t.Errorf("meta.test.id %v does not match X-Request-Id %q", test["id"], r.Header.Get("X-Request-Id"))
	}
	if _, ok := r.Envelope["timestamp"].(float64); !ok {
		t.Errorf("timestamp missing: %s", r.Body)
	}
	return meta, r.Envelope["data"]
}

// WantGolden compares the response, status and envelope, with the golden
// file testdata/<name>.golden (rewritten when the test runs with
// -update). What changes from run to run is replaced first: the
// timestamp and meta.test.id by fixed values, then each key of replace
// in the JSON text by its value (such as a fixture server's address).
func (r *Response) WantGolden(t testing.TB, name string, replace map[string]string) {
	t.Helper()
	env := r.Envelope
	if _, ok := env["timestamp"]; ok {
		env["timestamp"] = 0
	}
	if meta, ok := env["meta"].(map[string]any); ok {
		if test, ok := meta["test"].(map[string]any); ok {
			test["id"] = "TEST-ID"
		}
	}
	body, err := json.MarshalIndent(struct {
		Status   int            `json:"status"`
		Envelope map[string]any `json:"envelope"`
	}{r.Status, env}, "", "  ")
	if err != nil {
		t.Fatalf("apitest: %v", err)
	}
	got := string(body) + "\n"
	for old, repl := range replace {
		got = strings.ReplaceAll(got, old, repl)
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("apitest: %v (run the test with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("response differs from %s (run with -update if the change is meant):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
