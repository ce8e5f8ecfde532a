package lighthouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/internal/guardnet"
	"github.com/sitediag/sitediag/internal/guardtest"
	"github.com/sitediag/sitediag/internal/procs"
	"github.com/sitediag/sitediag/internal/testenv"
	"github.com/sitediag/sitediag/lighthouse"
	"github.com/sitediag/sitediag/net/guard"
)

// needLighthouse skips (or, in CI, fails) without Node, the package or
// Chromium.
func needLighthouse(t *testing.T) {
	t.Helper()
	_, errNode := exec.LookPath("node")
	_, errPkg := lighthouse.FindDir("")
	_, errChrome := browser.Find(os.Getenv("SITEDIAG_CHROME_PATH"))
	testenv.Need(t, errNode == nil && errPkg == nil && errChrome == nil,
		"needs node, Chromium and the lighthouse package (make setup)")
}

// fixture is a site of test pages, known as site.test, and a runner
// whose network allows loopback only through the allow list.
type fixture struct {
	runner *lighthouse.Runner
	site   string
	// slowHit receives when /slow is requested: an audit of it is under way.
	slowHit chan struct{}
}

func newFixture(t *testing.T, cfg lighthouse.Config) *fixture {
	t.Helper()
	cfg.Network = guardnet.Network(guardtest.New(t, "evil.test. 60 IN A 169.254.169.254"))
	r, err := lighthouse.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	slowHit := make(chan struct{}, 1)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch req.URL.Path {
		case "/favicon.ico":
			http.NotFound(w, req)
		case "/slow":
			select {
			case slowHit <- struct{}{}:
			default:
			}
			time.Sleep(1500 * time.Millisecond)
			w.Write([]byte(page))
		case "/refused":
			w.Write([]byte(strings.Replace(page, "</body>", `<img src="http://evil.test/pixel.gif" alt="x"></body>`, 1)))
		default:
			w.Write([]byte(page))
		}
	}))
	t.Cleanup(site.Close)
	return &fixture{runner: r, site: "http://site.test:" + site.URL[strings.LastIndex(site.URL, ":")+1:], slowHit: slowHit}
}

const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Fixture page</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="description" content="A page for audits.">
</head><body><h1>Hello</h1><p>A small page that loads fast.</p></body></html>`

func seoOnly(t *testing.T) *lighthouse.Flags {
	f, err := lighthouse.ParseFlags([]string{"--only-categories=seo,best-practices"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestAudit(t *testing.T) {
	needLighthouse(t)
	f := newFixture(t, lighthouse.Config{})
	ctx := context.Background()
	rep, err := f.runner.Audit(ctx, f.site+"/", lighthouse.Options{Desktop: true, Flags: seoOnly(t)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RuntimeError != nil || rep.FinalURL != f.site+"/" || rep.Scores["seo"] < 50 || rep.Scores["best-practices"] < 50 {
		t.Errorf("report: final %q, scores %v, runtime error %+v", rep.FinalURL, rep.Scores, rep.RuntimeError)
	}
	if _, ok := rep.Scores["performance"]; ok {
		t.Errorf("performance ran though only seo and best-practices were asked for: %v", rep.Scores)
	}
	if !strings.Contains(string(rep.HTML), "<html") || !strings.Contains(string(rep.JSON), `"lighthouseVersion"`) {
		t.Error("reports missing")
	}

	// A slow page (1.5 s to its first byte) is waited for and audited.
	rep, err = f.runner.Audit(ctx, f.site+"/slow", lighthouse.Options{Flags: seoOnly(t)})
	if err != nil || rep.RuntimeError != nil || rep.FinalURL != f.site+"/slow" || rep.Scores["seo"] < 50 {
		t.Errorf("slow page: %v, %+v", err, rep)
	}

	// A page that loads a refused address: refused, counted, audited.
	rep, err = f.runner.Audit(ctx, f.site+"/refused", lighthouse.Options{Flags: seoOnly(t)})
	if err != nil || rep.RuntimeError != nil || rep.Refused == 0 {
		t.Errorf("refused sub-resource: %v, %+v", err, rep)
	}

	// An unreachable target is Lighthouse's runtime error, not a failure.
	rep, err = f.runner.Audit(ctx, "http://127.0.0.1:1/", lighthouse.Options{Flags: seoOnly(t)})
	if err != nil || rep.RuntimeError == nil {
		t.Errorf("unreachable: %v, %+v", err, rep)
	}
}

// A worker killed mid-audit fails that audit cleanly; the next one
// starts a new worker and succeeds.
func TestAuditWorkerKilled(t *testing.T) {
	needLighthouse(t)
	f := newFixture(t, lighthouse.Config{})
	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		_, err := f.runner.Audit(ctx, f.site+"/slow", lighthouse.Options{Flags: seoOnly(t)})
		done <- err
	}()
	select {
	case <-f.slowHit: // Lighthouse is loading the page
	case err := <-done:
		t.Fatalf("the audit ended before loading the page: %v", err)
	}
	var killed int
	for _, pid := range procs.ChildrenOf(os.Getpid()) {
		if strings.Contains(procs.Cmdline(pid), "worker.mjs") && syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed++
		}
	}
	if killed != 1 {
		t.Fatalf("killed %d worker processes, want 1", killed)
	}
	if err := <-done; !errors.Is(err, lighthouse.ErrWorkerDied) {
		t.Errorf("audit whose worker died: got %v, want ErrWorkerDied", err)
	}
	if _, err := f.runner.Audit(ctx, f.site+"/", lighthouse.Options{Flags: seoOnly(t)}); err != nil {
		t.Errorf("next audit: %v", err)
	}
}

// An audit past its deadline is ended and its worker killed.
func TestAuditDeadline(t *testing.T) {
	needLighthouse(t)
	f := newFixture(t, lighthouse.Config{JobTimeout: 2 * time.Second})
	_, err := f.runner.Audit(context.Background(), f.site+"/slow", lighthouse.Options{Flags: seoOnly(t)})
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, lighthouse.ErrUnavailable) {
		t.Errorf("got %v, want the deadline", err)
	}
}

func TestParseFlags(t *testing.T) {
	f, err := lighthouse.ParseFlags([]string{"--only-categories=performance,seo", "--only-categories=accessibility",
		"--skip-audits=uses-http2", "--preset=perf", "--form-factor=desktop", "--screenEmulation.width=1024",
		"--screenEmulation.mobile=false", "--throttling-method=provided", "--throttling.rttMs=40", "--locale=de",
		"--emulated-user-agent=Test/1.0", "--blocked-url-patterns=*.woff2", "--max-wait-for-load=30000"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if f.Preset != "perf" || len(f.API["onlyCategories"].([]string)) != 3 || f.API["formFactor"] != "desktop" ||
		f.API["screenEmulation"].(map[string]any)["width"] != 1024.0 || f.API["screenEmulation"].(map[string]any)["mobile"] != false ||
		f.API["throttling"].(map[string]any)["rttMs"] != 40.0 || f.API["maxWaitForLoad"] != 30000.0 {
		t.Errorf("flags: %+v", f)
	}
	for _, bad := range []string{"--output-path=/tmp/x", "--config-path=/etc/passwd", "--port=9222", "--plugins=evil",
		"--chrome-flags=--no-sandbox", "--chrome-path=/bin/sh", "--view", "--max-wait-for-load=3600000", "--preset=fast",
		"--throttling.rttMs=abc", "only-categories=seo", "--only-categories", "--extra-headers={}", "--gather-mode"} {
		_, err := lighthouse.ParseFlags([]string{bad}, time.Minute)
		var fe *lighthouse.FlagError
		if !errors.As(err, &fe) || !strings.HasPrefix(bad, fe.Flag) {
			t.Errorf("%s: got %v, want a FlagError naming it", bad, err)
		}
	}
}

// Without the package the runner says so, without naming the folder, and
// starts nothing.
func TestUnavailable(t *testing.T) {
	dir := t.TempDir()
	r, err := lighthouse.New(lighthouse.Config{Network: guardnet.Network(guard.New(nil, guard.NewPolicy(nil))), Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if ready, msg := r.Status(); ready || !strings.Contains(msg, "not installed") || strings.Contains(msg, dir) {
		t.Errorf("status: %v %q", ready, msg)
	}
	if _, err := r.Audit(context.Background(), "http://site.test/", lighthouse.Options{}); !errors.Is(err, lighthouse.ErrUnavailable) {
		t.Errorf("got %v, want ErrUnavailable", err)
	}
}

// FindDir finds the package in $XDG_DATA_HOME/sitediag/lighthouse-<Version>,
// where the set-up installs it without root, from any working directory.
func TestFindDirDefault(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	want := filepath.Join(data, "sitediag", "lighthouse-"+lighthouse.Version)
	if dirs := lighthouse.DefaultDirs(); len(dirs) != 2 || dirs[0] != want ||
		dirs[1] != "/usr/local/share/sitediag/lighthouse-"+lighthouse.Version {
		t.Fatalf("DefaultDirs: %q", dirs)
	}
	index := filepath.Join(want, "node_modules", "lighthouse", "core", "index.js")
	if err := os.MkdirAll(filepath.Dir(index), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(index, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if got, err := lighthouse.FindDir(""); err != nil || got != want {
		t.Errorf("FindDir: %q, %v; want %q", got, err, want)
	}
}

// Version is the release package.json pins, which the set-up installs.
func TestVersionIsPinned(t *testing.T) {
	pkg, err := os.ReadFile("package.json")
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct{ Dependencies map[string]string }
	if err := json.Unmarshal(pkg, &manifest); err != nil {
		t.Fatal(err)
	}
	if got := manifest.Dependencies["lighthouse"]; got != lighthouse.Version {
		t.Errorf("package.json pins lighthouse %s, Version is %s", got, lighthouse.Version)
	}
}

// Audits of the same page give the same scores, as the CLI's fresh
// browser does each time: a favicon that failed to load is requested
// (and logged as a console error) on every audit, not only the first.
func TestAuditRepeatable(t *testing.T) {
	needLighthouse(t)
	f := newFixture(t, lighthouse.Config{})
	ctx := context.Background()
	flags, err := lighthouse.ParseFlags([]string{"--only-categories=best-practices"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var scores []int
	for range 2 {
		rep, err := f.runner.Audit(ctx, f.site+"/", lighthouse.Options{Desktop: true, Flags: flags})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(rep.JSON), `"errors-in-console"`) {
			t.Fatal("no errors-in-console audit in the report")
		}
		scores = append(scores, rep.Scores["best-practices"])
	}
	if scores[0] != scores[1] || scores[0] == 100 {
		t.Errorf("best-practices %v; want the same score twice, below 100 (the favicon's 404 is a console error)", scores)
	}
}
