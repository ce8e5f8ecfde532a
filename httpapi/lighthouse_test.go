package httpapi_test

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/procs"
	"github.com/sitediag/sitediag/internal/testenv"
	"github.com/sitediag/sitediag/lighthouse"
)

func needLighthouse(t *testing.T) {
	t.Helper()
	needChromium(t)
	_, errNode := exec.LookPath("node")
	_, errPkg := lighthouse.FindDir("")
	testenv.Need(t, errNode == nil && errPkg == nil, "needs node and the lighthouse package (make setup)")
}

// lighthouseSite is a fixture site for audits, known as site.test.
func lighthouseSite(t *testing.T, api *apitest.API) string {
	t.Helper()
	base := serveAs(t, api, "site.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/favicon.ico":
			http.NotFound(w, r)
			return
		case "/old":
			http.Redirect(w, r, "/", http.StatusMovedPermanently)
			return
		case "/missing":
			w.WriteHeader(http.StatusNotFound)
		case "/slow":
			time.Sleep(time.Second)
		}
		io.WriteString(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Audit me</title>
			<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="description" content="A fixture.">
			</head><body><h1>Audit me</h1><p>Small and fast.</p>`)
		if r.URL.Path == "/refused" {
			io.WriteString(w, `<img src="http://metadata.test/latest/meta-data" alt="refused">`)
		}
	}))
	api.DNS.Add(t, "metadata.test. 60 IN A 169.254.169.254")
	return base
}

// lighthouseFixture is a test API and its fixture site (lighthouseSite)
// to audit, on a machine that can run Lighthouse.
func lighthouseFixture(t *testing.T) (*apitest.API, string) {
	t.Helper()
	needLighthouse(t)
	api := apitest.New(t, apitest.Options{})
	return api, lighthouseSite(t, api)
}

func TestLighthouseEnvelope(t *testing.T) {
	api, site := lighthouseFixture(t)
	resp := api.Post(t, "/lighthouse", map[string]any{"url": site + "/old", "parameters": []string{"--only-categories=seo,accessibility"}})
	meta, data := resp.WantSuccess(t)
	wantMeta(t, meta, map[string]any{"url": site + "/old", "redirectedURL": site + "/", "device": "desktop",
		"followRedirect": true, "parameters": []any{"--only-categories=seo,accessibility"}, "blockedRequests": 0})
	if html := fetchArtifact(t, api, data, "text/html; charset=utf-8"); !strings.Contains(string(html), "Lighthouse") {
		t.Error("the HTML report is not Lighthouse's")
	}
	scores, _ := meta["scores"].(map[string]any)
	if seo, _ := scores["seo"].(float64); seo < 50 || scores["performance"] != nil || scores["accessibility"] == nil {
		t.Errorf("scores: %v", scores)
	}
	if report := fetchArtifact(t, api, meta["jsonReport"], "application/json"); !strings.Contains(string(report), `"finalDisplayedUrl"`) {
		t.Error("the JSON report is not Lighthouse's")
	}

	// What the page may not load is refused and counted; the audit succeeds.
	resp = api.Post(t, "/lighthouse", map[string]any{"url": site + "/refused", "device": "mobile", "parameters": []string{"--only-categories=seo"}})
	meta, _ = resp.WantSuccess(t)
	if n, _ := meta["blockedRequests"].(float64); n < 1 || meta["device"] != "mobile" {
		t.Errorf("refused sub-resource: meta %v", meta)
	}

	for _, tc := range []struct {
		body   map[string]any
		status int
		code   sitediag.Code
		detail string
	}{
		{map[string]any{"url": "http://metadata.test/"}, 403, sitediag.CodeTargetNotAllowed, ""},
		{map[string]any{"url": "http://no-such.test/"}, 422, sitediag.CodeUnableToConnect, ""},
		{map[string]any{"url": site + "/missing", "parameters": []string{"--only-categories=seo"}}, 422, sitediag.CodeUnableToConnect, "ERRORED_DOCUMENT_REQUEST"},
		{map[string]any{"url": site + "/old", "followRedirect": false, "parameters": []string{"--only-categories=seo"}}, 422, sitediag.CodeUnableToConnect, "redirects"},
		{map[string]any{"url": site, "parameters": []string{"--output-path=/tmp/x"}}, 400, sitediag.CodeInvalidParameters, "--output-path"},
		{map[string]any{"url": site, "parameters": []string{"--chrome-flags=--no-sandbox"}}, 400, sitediag.CodeInvalidParameters, "--chrome-flags"},
		{map[string]any{"url": site, "parameters": []string{"--max-wait-for-load=999999999"}}, 400, sitediag.CodeInvalidParameters, "--max-wait-for-load"},
		{map[string]any{"url": site, "parameters": []string{"--throttling.rttMs=NaN"}}, 400, sitediag.CodeInvalidParameters, "--throttling.rttMs"},
		{map[string]any{"url": site, "parameters": []string{"--emulated-user-agent=x\r\nX-Injected: 1"}}, 400, sitediag.CodeInvalidParameters, "--emulated-user-agent"},
		{map[string]any{"url": site, "parameters": []string{"--locale=../../../../etc/passwd"}}, 400, sitediag.CodeInvalidParameters, "--locale"},
		{map[string]any{"url": site, "parameters": "--only-categories=seo"}, 400, sitediag.CodeInvalidParameters, "parameters"},
		{map[string]any{"url": site, "device": "tablet"}, 400, sitediag.CodeInvalidParameters, "device"},
		{map[string]any{"url": "ftp://site.test/"}, 400, sitediag.CodeInvalidURL, ""},
	} {
		resp := api.Post(t, "/lighthouse", tc.body)
		resp.WantError(t, tc.status, tc.code)
		if d, _ := resp.Envelope["details"].(string); !strings.Contains(d, tc.detail) {
			t.Errorf("%v: details %q lack %q", tc.body, d, tc.detail)
		}
	}
}

// Twenty audits in a row (one of a slow page), then Close: no Node or
// Chromium process of ours is left.
func TestLighthouseLeavesNothing(t *testing.T) {
	api, site := lighthouseFixture(t)
	for i := range 20 {
		path := "/"
		if i == 1 {
			path = "/slow"
		}
		resp := api.Post(t, "/lighthouse", map[string]any{"url": site + path, "parameters": []string{"--only-audits=document-title", "--throttling-method=provided"}})
		meta, _ := resp.WantSuccess(t)
		if meta["redirectedURL"] != site+path {
			t.Errorf("audit %d: audited %v, want %s", i, meta["redirectedURL"], site+path)
		}
	}
	// Every process under this test now: the worker's Node, Chromium and
	// Chromium's own children (zygote, GPU, network service; the audits'
	// renderers went with their contexts).
	running := procs.Descendants(os.Getpid())
	var node, chromium bool
	for _, pid := range running {
		cmd := procs.Cmdline(pid)
		node = node || strings.Contains(cmd, "worker.mjs")
		chromium = chromium || strings.Contains(cmd, "chromium")
	}
	if !node || !chromium {
		t.Fatalf("no worker (%v) or Chromium (%v) among the %d processes running the audits", node, chromium, len(running))
	}
	api.Client.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left []string
		for _, pid := range running {
			if cmd := procs.Cmdline(pid); cmd != "" {
				left = append(left, cmd)
			}
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("left behind after Close: %q", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Without the package, /health/service and /lighthouse say so, and name
// no folder of the server.
func TestLighthouseHealth(t *testing.T) {
	dir := t.TempDir()
	api := apitest.New(t, apitest.Options{Config: sitediag.Config{LighthouseDir: dir}})
	resp := api.Do(t, http.MethodGet, "/health/service", nil, map[string]string{"x-api-key": apitest.Key})
	services, _ := resp.Envelope["services"].([]any)
	var found bool
	for _, s := range services {
		m, _ := s.(map[string]any)
		if m["name"] == "lighthouse" {
			found = true
			if msg, _ := m["message"].(string); m["status"] != "down" || !strings.Contains(msg, "not installed") || strings.Contains(msg, dir) {
				t.Errorf("lighthouse health without the package: %v", m)
			}
		}
	}
	if !found {
		t.Errorf("no lighthouse service in %s", resp.Body)
	}
	resp = api.Post(t, "/lighthouse", map[string]any{"url": "http://127.0.0.1:9/"})
	resp.WantError(t, 503, sitediag.CodeLighthouseUnavailable)
	if strings.Contains(string(resp.Body), dir) {
		t.Errorf("/lighthouse names the server's folder: %s", resp.Body)
	}
}
