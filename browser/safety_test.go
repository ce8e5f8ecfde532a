package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag/net/netx"
)

// load runs one job that loads target and returns Load's error and the
// job's stats.
func (e *env) load(t *testing.T, target string, opts LoadOptions) (*Visit, Stats, error) {
	t.Helper()
	var v *Visit
	var stats Stats
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	err := e.pool.Do(ctx, JobOptions{}, func(ctx context.Context, j *Job) error {
		var err error
		v, err = j.Load(ctx, target, opts)
		stats = j.Stats()
		return err
	})
	return v, stats, err
}

func TestPageLoadsCannotReachRefusedAddresses(t *testing.T) {
	e := newEnv(t, Config{})
	f := listenForbidden(t)
	ip := fmt.Sprintf("127.0.0.2:%d", f.port)
	name := fmt.Sprintf("evil.test:%d", f.port)
	page := e.site.page("/attack", `<!doctype html><body style="background:#0f0">
<img src="http://`+ip+`/img.png">
<img src="http://`+name+`/named.png">
<img src="https://`+ip+`/tls.png">
<img src="http://[::1]:`+fmt.Sprint(f.port)+`/v6.png">
<iframe src="http://`+ip+`/frame"></iframe>
<link rel="stylesheet" href="http://`+name+`/style.css">
<script>
  fetch('http://`+ip+`/fetch').catch(() => {});
  fetch('https://`+name+`/fetch-tls', { mode: 'no-cors' }).catch(() => {});
  navigator.sendBeacon('http://`+ip+`/beacon', 'x');
  try { new WebSocket('ws://`+ip+`/ws'); } catch (e) {}
  try { new WebSocket('wss://`+name+`/wss'); } catch (e) {}
  new Worker(URL.createObjectURL(new Blob(["fetch('http://`+ip+`/worker').catch(() => {})"])));
  try {
    const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:`+ip+`' }, { urls: 'turn:`+ip+`?transport=udp', username: 'u', credential: 'p' }] });
    pc.createDataChannel('x');
    pc.createOffer().then((o) => pc.setLocalDescription(o));
  } catch (e) {}
  location.hash = 'done';
</script></body>`)
	var stats Stats
	e.do(t, JobOptions{}, func(ctx context.Context, j *Job) error {
		v, err := j.Load(ctx, page, LoadOptions{Delay: 2 * time.Second})
		if err != nil {
			return fmt.Errorf("the page itself must load: %w", err)
		}
		if v.Status != http.StatusOK {
			t.Errorf("status %d, want 200", v.Status)
		}
		shot, err := j.Screenshot(ctx, ShotOptions{})
		if err != nil {
			return err
		}
		if px := decode(t, shot.Data, "png").At(5, 5); !near(px, green) {
			t.Errorf("pixel %v, want the page's green", px)
		}
		stats = j.Stats()
		return nil
	})
	if n, p := f.conns.Load(), f.pkts.Load(); n != 0 || p != 0 {
		t.Errorf("the refused listener saw %d connections and %d UDP packets, want none", n, p)
	}
	// img ×2, https img, iframe, stylesheet, 2 fetches, beacon, 2
	// WebSockets, worker; [::1] is refused too but may be retried or
	// skipped by Chromium, so count at least the others.
	t.Logf("refused %d", stats.Refused)
	if stats.Refused < 10 {
		t.Errorf("the job's proxy refused %d requests, want at least 10", stats.Refused)
	}
}

func TestNavigationErrors(t *testing.T) {
	e := newEnv(t, Config{})
	f := listenForbidden(t)
	evil := fmt.Sprintf("http://evil.test:%d/", f.port)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closedPort := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	e.site.redirect("/loop", "/loop")
	e.site.handle("/download", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="x.bin"`)
		w.Write(make([]byte, 1024))
	})

	for _, tc := range []struct {
		name, target string
		refused      bool   // the policy refused the document
		why          string // NavigationError.Why otherwise
	}{
		{name: "refused address", target: fmt.Sprintf("http://127.0.0.2:%d/", f.port), refused: true},
		{name: "name of a refused address", target: evil, refused: true},
		{name: "refused over TLS", target: fmt.Sprintf("https://evil.test:%d/", f.port), refused: true},
		{name: "redirect to a refused address", target: e.site.redirect("/to-evil", evil), refused: true},
		{name: "redirect to a refused address over TLS", target: e.site.redirect("/to-evil-tls", strings.Replace(evil, "http:", "https:", 1)), refused: true},
		{name: "script navigation to a refused address", target: e.site.page("/js-evil", `<script>location.href = '`+evil+`'</script>`), refused: true},
		{name: "name not resolved", target: "http://missing.test/", why: "name not resolved"},
		{name: "connection refused", target: fmt.Sprintf("http://site.test:%d/", closedPort), why: "connection refused"},
		{name: "redirect loop", target: e.site.url("/loop"), why: "too many redirects, or a redirect loop"},
		{name: "download", target: e.site.url("/download"), why: "navigation aborted (a download, or the load was cancelled)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := e.load(t, tc.target, LoadOptions{})
			var ne *NavigationError
			if !errors.As(err, &ne) {
				t.Fatalf("got %v, want a *NavigationError", err)
			}
			if tc.refused {
				if !errors.Is(err, netx.ErrNotAllowed) {
					t.Errorf("got %v, want it to wrap netx.ErrNotAllowed", err)
				}
				return
			}
			if errors.Is(err, netx.ErrNotAllowed) || ne.Why() != tc.why {
				t.Errorf("got %v (why %q), want %q", err, ne.Why(), tc.why)
			}
		})
	}
	if n := f.conns.Load(); n != 0 {
		t.Errorf("the refused listener saw %d connections, want none", n)
	}
}

func TestJobsAreIsolated(t *testing.T) {
	e := newEnv(t, Config{MaxJobs: 2})
	page := e.site.page("/state", `<!doctype html><body>`)
	read := `() => document.cookie + '|' + (localStorage.getItem('k') || '')`
	var first, second string
	e.do(t, JobOptions{}, func(ctx context.Context, j *Job) error {
		if _, err := j.Load(ctx, page, LoadOptions{}); err != nil {
			return err
		}
		res, err := j.Page(ctx).Eval(`() => { document.cookie = 'c=1; max-age=3600'; localStorage.setItem('k', 'v'); return ` + read[6:] + `; }`)
		if err == nil {
			first = res.Value.Str()
		}
		return err
	})
	e.do(t, JobOptions{}, func(ctx context.Context, j *Job) error {
		if _, err := j.Load(ctx, page, LoadOptions{}); err != nil {
			return err
		}
		res, err := j.Page(ctx).Eval(read)
		if err == nil {
			second = res.Value.Str()
		}
		return err
	})
	if first != "c=1|v" || second != "|" {
		t.Errorf("first job saw %q, second %q; want c=1|v then nothing", first, second)
	}
}
