package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/exampletest"
)

// TestServerRun builds and runs the server as the README says, reads the
// generated key, the listen address and the report page's address from
// its output, asks /health with the key, follows / to the report page,
// then stops it with SIGTERM and expects a clean exit; started again on
// the same data directory, it keeps the key.
func TestServerRun(t *testing.T) {
	bin := exampletest.Build(t)
	dataDir := t.TempDir()
	p := exampletest.Start(t, bin, []string{"SITEDIAG_API_KEYS="}, "-addr", "127.0.0.1:0", "-data-dir", dataDir)
	key := p.WaitForAny(t, regexp.MustCompile(`^\s*(sd_\S+)\s*$`), 30*time.Second)[1]
	addr := p.WaitFor(t, regexp.MustCompile(`msg=listening addr=(\S+)`), 30*time.Second)[1]
	page := p.WaitFor(t, regexp.MustCompile(`msg="report page" url=(\S+)`), 30*time.Second)[1]
	if page != "http://"+addr+"/ui/" {
		t.Errorf("the log gives the report page as %s, want http://%s/ui/", page, addr)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if resp, err := noFollow.Get("http://" + addr + "/"); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/ui/" {
		t.Errorf("GET /: %d to %q, want 302 to /ui/", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, err := http.Get(page); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != 200 || len(resp.Header.Get("X-Request-Id")) != 32 {
		t.Errorf("GET %s: %d, X-Request-Id %q", page, resp.StatusCode, resp.Header.Get("X-Request-Id"))
	}

	status, body := exampletest.Get(t, "http://"+addr+"/health", key)
	var env map[string]any
	if err := json.Unmarshal([]byte(body), &env); err != nil || status != 200 || env["message"] != "API is healthy" ||
		env["apiStatus"] != "success" {
		t.Fatalf("/health: %d %s", status, body)
	}

	p.Stop(t, 30*time.Second)

	again := exampletest.Start(t, bin, []string{"SITEDIAG_API_KEYS="}, "-addr", "127.0.0.1:0", "-data-dir", dataDir)
	if got := again.WaitForAny(t, regexp.MustCompile(`^\s*(sd_\S+)\s*$`), 30*time.Second)[1]; got != key {
		t.Errorf("after a restart the key is %s, want the kept %s", got, key)
	}
	if fi, err := os.Stat(filepath.Join(dataDir, "api-key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("kept key file: %v, %v", fi, err)
	}
}

// TestServerMetricsAndJSONLogs: with SITEDIAG_METRICS_ADDR the server
// serves Prometheus metrics on their own listener, and with
// SITEDIAG_LOG_FORMAT=json every log line is a JSON object.
func TestServerMetricsAndJSONLogs(t *testing.T) {
	p := exampletest.Start(t, exampletest.Build(t), []string{"SITEDIAG_API_KEYS=k1", "SITEDIAG_LOG_FORMAT=json",
		"SITEDIAG_METRICS_ADDR=127.0.0.1:0", "SITEDIAG_ADDR=127.0.0.1:0", "SITEDIAG_DATA_DIR=" + t.TempDir()})
	addr := p.WaitFor(t, regexp.MustCompile(`^\{.*"msg":"listening","addr":"([^"]+)"`), 30*time.Second)[1]
	metrics := p.WaitFor(t, regexp.MustCompile(`^\{.*"msg":"metrics","addr":"([^"]+)"`), 30*time.Second)[1]

	exampletest.Get(t, "http://"+addr+"/health", "k1")
	exampletest.Get(t, "http://"+addr+"/health", "wrong")
	_, scrape := exampletest.Get(t, "http://"+metrics+"/metrics", "")
	for _, want := range []string{
		`sitediag_requests_total{code="",operation="/health",status="200"} 1`,
		`sitediag_requests_total{code="UNAUTHORIZED",operation="/health",status="401"} 1`,
		`sitediag_browser_job_slots 2`,
		`go_goroutines `,
		`process_resident_memory_bytes `,
	} {
		if !strings.Contains(scrape, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	p.WaitFor(t, regexp.MustCompile(`^\{.*"msg":"request".*"path":"/health"`), 30*time.Second)
}

// TestServerHelp: -h prints the flags and exits 0, not an error.
func TestServerHelp(t *testing.T) {
	p := exampletest.Start(t, exampletest.Build(t), nil, "-h")
	p.WaitFor(t, regexp.MustCompile(`-addr string`), 30*time.Second)
	if code := p.Exit(t, 30*time.Second); code != 0 {
		t.Fatalf("-h exited with %d, want 0", code)
	}
}

// TestMakeRunHonoursTheEnvironment: make run passes -addr only when ADDR
// is given, so SITEDIAG_ADDR reaches the server otherwise.
func TestMakeRunHonoursTheEnvironment(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	run := func(env ...string) string {
		cmd := exec.Command("make", "-n", "-C", "../..", "run")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n run: %v\n%s", err, out)
		}
		for line := range strings.SplitSeq(string(out), "\n") {
			if strings.Contains(line, "bin/sitediag-server") && strings.HasPrefix(line, "exec ") {
				return strings.TrimSpace(line)
			}
		}
		t.Fatalf("make -n run printed no exec line:\n%s", out)
		return ""
	}
	if got := run("SITEDIAG_ADDR=127.0.0.1:9999"); strings.Contains(got, "-addr") {
		t.Errorf("with SITEDIAG_ADDR set: %q overrides it", got)
	}
	if got := run("ADDR=127.0.0.1:7777"); !strings.HasSuffix(got, "-addr 127.0.0.1:7777") {
		t.Errorf("with ADDR set: %q, want -addr 127.0.0.1:7777", got)
	}
}

// TestServerLighthouseFromAnywhere: a server started in /tmp with no
// Lighthouse setting finds the Lighthouse make setup installed, and
// /lighthouse audits a page.
func TestServerLighthouseFromAnywhere(t *testing.T) {
	exampletest.Lighthouse(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Audit me</title>
			<meta name="description" content="A fixture."></head><body><h1>Audit me</h1></body></html>`)
	}))
	defer site.Close()

	p := exampletest.StartIn(t, os.TempDir(), exampletest.Build(t), []string{"SITEDIAG_API_KEYS=k1", "SITEDIAG_LIGHTHOUSE_DIR=",
		"SITEDIAG_ALLOW_NETWORKS=127.0.0.1/32", "SITEDIAG_ADDR=127.0.0.1:0", "SITEDIAG_DATA_DIR=" + t.TempDir()})
	addr := p.WaitFor(t, regexp.MustCompile(`msg=listening addr=(\S+)`), 30*time.Second)[1]
	body := strings.NewReader(`{"url":"` + site.URL + `/","parameters":["--only-categories=seo"]}`)
	req, _ := http.NewRequest("POST", "http://"+addr+"/lighthouse", body)
	req.Header.Set("x-api-key", "k1")
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		APIStatus string `json:"apiStatus"`
		Meta      struct {
			Scores struct{ SEO *int }
		}
		Details string
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || resp.StatusCode != 200 || env.APIStatus != "success" ||
		env.Meta.Scores.SEO == nil {
		t.Fatalf("/lighthouse from a server in %s: %d %+v %v", os.TempDir(), resp.StatusCode, env, err)
	}
}

func TestSettings(t *testing.T) {
	t.Setenv("SITEDIAG_ALLOW_NETWORKS", "10.1.0.0/16, 127.0.0.1/32")
	t.Setenv("SITEDIAG_DNS_SERVERS", "127.0.0.1:5353")
	t.Setenv("SITEDIAG_PROXIES", "us=http://proxy.example:3128,DE=socks5://127.0.0.1:1080")
	t.Setenv("SITEDIAG_RATE_LIMIT", "0")
	t.Setenv("SITEDIAG_CHROME_PATH", "/opt/chromium/chrome")
	t.Setenv("SITEDIAG_LIGHTHOUSE_DIR", "/opt/lighthouse")
	t.Setenv("SITEDIAG_BROWSER_URL", "ws://127.0.0.1:9222/devtools/browser/x")
	t.Setenv("SITEDIAG_BROWSER_PROXY_ADDR", "0.0.0.0:3128")
	t.Setenv("SITEDIAG_BROWSER_PROXY_URL", "http://api-1.internal:3128")
	t.Setenv("SITEDIAG_API_KEYS", "k1, k2")
	t.Setenv("SITEDIAG_PUBLIC_URL", "https://diag.example/api")
	t.Setenv("SITEDIAG_DATA_DIR", "/var/lib/sitediag")
	t.Setenv("SITEDIAG_CORS_ORIGINS", "https://app.example")
	t.Setenv("SITEDIAG_ARTIFACTS_URL", "s3://bucket?region=eu-west-1")
	t.Setenv("SITEDIAG_ARTIFACTS_PRESIGN", "1")
	t.Setenv("SITEDIAG_REDIS_URL", "redis://127.0.0.1:6379/2")
	s, err := parseSettings([]string{"-addr", "127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := s.clientConfig()
	if err != nil {
		t.Fatal(err)
	}
	if s.addr != "127.0.0.1:9" || s.rateLimit != 0 || len(cfg.AllowNetworks) != 2 || cfg.DNSServers[0] != "127.0.0.1:5353" ||
		cfg.Proxies["us"].Host != "proxy.example:3128" || cfg.Proxies["de"].Scheme != "socks5" ||
		cfg.ChromePath != "/opt/chromium/chrome" || cfg.LighthouseDir != "/opt/lighthouse" || cfg.BrowserURL != "ws://127.0.0.1:9222/devtools/browser/x" ||
		cfg.BrowserProxyAddr != "0.0.0.0:3128" || cfg.BrowserProxyURL != "http://api-1.internal:3128" ||
		s.apiKeys != "k1, k2" || s.publicURL != "https://diag.example/api" || s.dataDir != "/var/lib/sitediag" ||
		s.corsOrigins != "https://app.example" ||
		s.artifactsURL != "s3://bucket?region=eu-west-1" || !s.presign || s.redisURL != "redis://127.0.0.1:6379/2" {
		t.Fatalf("settings %+v, config %+v", s, cfg)
	}
	for _, tc := range []struct{ env, bad string }{
		{"SITEDIAG_ALLOW_NETWORKS", "10.0.0.0"},
		{"SITEDIAG_PROXIES", "us"},
		{"SITEDIAG_PROXIES", "=http://proxy.example:3128"},
		{"SITEDIAG_RATE_LIMIT", "-1"},
		{"SITEDIAG_PUBLIC_URL", "ftp:/x"},
		{"SITEDIAG_PUBLIC_URL", "diag.example"},
		{"SITEDIAG_PUBLIC_URL", "https://diag.example/api?x=1"},
		{"SITEDIAG_LOG_FORMAT", "xml"},
		{"SITEDIAG_ARTIFACTS_PRESIGN", "maybe"},
	} {
		env, bad := tc.env, tc.bad
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, bad)
			s, err := parseSettings(nil)
			if err == nil {
				_, err = s.clientConfig()
			}
			if err == nil {
				t.Errorf("%s=%q accepted", env, bad)
			}
		})
	}
}

func TestOpenArtifacts(t *testing.T) {
	dir := t.TempDir()
	for _, raw := range []string{"", "file://" + dir + "/store"} {
		s, err := openArtifacts(context.Background(), raw, dir)
		if err != nil {
			t.Fatalf("openArtifacts(%q): %v", raw, err)
		}
		if err := s.Check(context.Background()); err != nil {
			t.Errorf("openArtifacts(%q): Check: %v", raw, err)
		}
		s.Close()
	}
	for _, p := range []string{dir + "/artifacts", dir + "/store"} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("local store dir: %v", err)
		}
	}
	for _, bad := range []string{"file://host/dir", "file:relative", "nosuch://bucket", "s3://%zz"} {
		if s, err := openArtifacts(context.Background(), bad, dir); err == nil {
			s.Close()
			t.Errorf("openArtifacts(%q) accepted", bad)
		}
	}
}

func TestOpenRedis(t *testing.T) {
	rdb, err := openRedis("redis://127.0.0.1:1/3")
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	if o := rdb.Options(); o.DB != 3 || o.DialTimeout != redisDialTimeout || o.ReadTimeout != redisIOTimeout || o.MaxRetries != 1 {
		t.Errorf("options %+v, want db 3 and the short defaults", o)
	}
	rdb2, err := openRedis("redis://127.0.0.1:1/0?dial_timeout=3s&max_retries=4")
	if err != nil {
		t.Fatal(err)
	}
	defer rdb2.Close()
	if o := rdb2.Options(); o.DialTimeout != 3*time.Second || o.MaxRetries != 4 {
		t.Errorf("URL's dial_timeout and max_retries not kept: %v, %d", o.DialTimeout, o.MaxRetries)
	}
	if _, err := openRedis("http://127.0.0.1/"); err == nil {
		t.Error("openRedis(http://…) accepted")
	}
}

func TestPresignNeedsBucket(t *testing.T) {
	t.Setenv("SITEDIAG_ARTIFACTS_PRESIGN", "1")
	s, err := parseSettings([]string{"-addr", "127.0.0.1:0", "-data-dir", t.TempDir(), "-api-keys", "k"})
	if err != nil {
		t.Fatal(err)
	}
	err = run(s, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "needs a bucket") {
		t.Errorf("presign with a local store: got %v, want a refusal", err)
	}
}
