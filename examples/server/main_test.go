package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServerRun builds and runs the server as the README says, reads the
// generated key and the listen address from its output, asks /health
// with the key, then stops it with SIGTERM and expects a clean exit.
func TestServerRun(t *testing.T) {
	cmd := exec.Command(buildServer(t), "-addr", "127.0.0.1:0", "-data-dir", t.TempDir())
	cmd.Env = append(os.Environ(), "SITEDIAG_API_KEYS=")
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	keyc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if k := strings.TrimSpace(sc.Text()); strings.HasPrefix(k, "sd_") {
				keyc <- k
			}
		}
	}()
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`msg=listening addr=(\S+)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addrc <- m[1]
			}
		}
	}()
	var key, addr string
	for key == "" || addr == "" {
		select {
		case key = <-keyc:
		case addr = <-addrc:
		case <-time.After(30 * time.Second):
			t.Fatalf("server printed no key/address (key %q, addr %q)", key, addr)
		}
	}

	req, _ := http.NewRequest("GET", "http://"+addr+"/health", nil)
	req.Header.Set("x-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var env map[string]any
	if err := json.Unmarshal(body, &env); err != nil || resp.StatusCode != 200 || env["message"] != "API is healthy" ||
		env["apiStatus"] != "success" {
		t.Fatalf("/health: %d %s", resp.StatusCode, body)
	}

	stop(t, cmd)
}

// buildServer builds this command into the test's temporary directory.
func buildServer(t *testing.T) string {
	t.Helper()
	bin := t.TempDir() + "/server"
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// stop sends SIGTERM and wants a clean exit within 30 s.
func stop(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("server exited with %v after SIGTERM", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("server did not stop after SIGTERM")
	}
}

func TestSettings(t *testing.T) {
	t.Setenv("SITEDIAG_ALLOW_NETWORKS", "10.1.0.0/16, 127.0.0.1/32")
	t.Setenv("SITEDIAG_DNS_SERVERS", "127.0.0.1:5353")
	t.Setenv("SITEDIAG_PROXIES", "us=http://proxy.example:3128,DE=socks5://127.0.0.1:1080")
	t.Setenv("SITEDIAG_RATE_LIMIT", "0")
	t.Setenv("SITEDIAG_CHROME_PATH", "/opt/chromium/chrome")
	t.Setenv("SITEDIAG_BROWSER_URL", "ws://127.0.0.1:9222/devtools/browser/x")
	t.Setenv("SITEDIAG_API_KEYS", "k1, k2")
	t.Setenv("SITEDIAG_PUBLIC_URL", "https://diag.example/api")
	t.Setenv("SITEDIAG_DATA_DIR", "/var/lib/sitediag")
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
		cfg.Proxies["us"].Host != "proxy.example:3128" || cfg.Proxies["DE"].Scheme != "socks5" ||
		cfg.ChromePath != "/opt/chromium/chrome" || cfg.BrowserURL != "ws://127.0.0.1:9222/devtools/browser/x" ||
		s.apiKeys != "k1, k2" || s.publicURL != "https://diag.example/api" || s.dataDir != "/var/lib/sitediag" ||
		s.artifactsURL != "s3://bucket?region=eu-west-1" || !s.presign || s.redisURL != "redis://127.0.0.1:6379/2" {
		t.Fatalf("settings %+v, config %+v", s, cfg)
	}
	for _, tc := range []struct{ env, bad string }{
		{"SITEDIAG_ALLOW_NETWORKS", "10.0.0.0"},
		{"SITEDIAG_PROXIES", "us"},
		{"SITEDIAG_PROXIES", "=http://proxy.example:3128"},
		{"SITEDIAG_RATE_LIMIT", "-1"},
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
	err := run([]string{"-addr", "127.0.0.1:0", "-data-dir", t.TempDir(), "-api-keys", "k"}, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "needs a bucket") {
		t.Errorf("presign with a local store: got %v, want a refusal", err)
	}
}
