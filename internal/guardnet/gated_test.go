package guardnet_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/internal/guardnet"
	"github.com/sitediag/sitediag/internal/guardtest"
	"github.com/sitediag/sitediag/internal/netnstest"
	"github.com/sitediag/sitediag/internal/porttest"
	"github.com/sitediag/sitediag/internal/proxygate"
	"github.com/sitediag/sitediag/internal/testenv"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/netx"
)

// fixture is what the gated tests' browsers load: one.test, two.test,
// site.test and ads.doubleclick.net name the site on 127.0.0.1 (plain
// HTTP, and HTTPS on tlsPort), the only address the guard allows;
// evil.test names 127.0.0.2, where forbidden counts what reaches it.
type fixture struct {
	chromium string
	guard    *guard.Guard
	port     string // the site's HTTP port
	tlsPort  string
	// forbidden listens on 127.0.0.2:forbiddenPort and counts the
	// connections that reach it.
	forbidden     *porttest.Listener
	forbiddenPort int

	mu   sync.Mutex
	seen []string // "path auth" for each request the site served
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	chromium, err := browser.Find(os.Getenv("SITEDIAG_CHROME_PATH"))
	testenv.Need(t, err == nil, "needs Chromium (apt-get install chromium)")
	f := &fixture{chromium: chromium}
	f.guard = guardtest.New(t, "one.test. 60 IN A 127.0.0.1", "two.test. 60 IN A 127.0.0.1",
		"ads.doubleclick.net. 60 IN A 127.0.0.1", "evil.test. 60 IN A 127.0.0.2")

	site := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(site.Close)
	tls := httptest.NewTLSServer(http.HandlerFunc(f.serve))
	t.Cleanup(tls.Close)
	_, f.port, _ = net.SplitHostPort(site.Listener.Addr().String())
	_, f.tlsPort, _ = net.SplitHostPort(tls.Listener.Addr().String())

	f.forbidden = porttest.ListenOn(t, "127.0.0.2", porttest.Hangup)
	f.forbiddenPort = int(f.forbidden.Port)
	return f
}

// serve answers the site's paths: /page/<name> is a page that loads
// what a job's traffic should include, /private asks for a login, and
// anything else is a small text.
func (f *fixture) serve(w http.ResponseWriter, r *http.Request) {
	host, _, _ := net.SplitHostPort(r.Host)
	f.mu.Lock()
	f.seen = append(f.seen, host+r.URL.Path+" "+r.Header.Get("Authorization")+r.Header.Get("Proxy-Authorization"))
	f.mu.Unlock()
	switch {
	case strings.HasPrefix(r.URL.Path, "/page/"):
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>%[1]s</title><img src="/img/%[1]s.png">
<iframe src="http://site.test:%[2]s/frame"></iframe>
<iframe src="https://site.test:%[3]s/secure"></iframe>
<img src="http://ads.doubleclick.net:%[2]s/ad.png"><img src="http://evil.test:%[4]d/x.png">
<script>fetch("/data/%[1]s")</script>`, host, f.port, f.tlsPort, f.forbiddenPort)
	case r.URL.Path == "/private":
		w.Header().Set("WWW-Authenticate", `Basic realm="private"`)
		http.Error(w, "login", http.StatusUnauthorized)
	default:
		w.Write([]byte("ok"))
	}
}

// saw reports whether the site served host+path (no port), and what
// credentials any request for it carried.
func (f *fixture) saw(hostPath string) (seen bool, creds string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.seen {
		p, c, _ := strings.Cut(s, " ")
		if p == hostPath {
			seen = true
			creds += c
		}
	}
	return seen, creds
}

// await waits, while a job lives, until the fixture has served every
// one of hostPaths (a page's frames and fetches may still be loading
// when its load event fired late on a busy machine), at most 20 s.
func (f *fixture) await(ctx context.Context, hostPaths ...string) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for _, hp := range hostPaths {
		for seen, _ := f.saw(hp); !seen && ctx.Err() == nil; seen, _ = f.saw(hp) {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func (f *fixture) url(host, path string) string { return "http://" + host + ":" + f.port + path }

// launch starts Chromium as an operator starts a remote browser, with
// browser.Flags and the gate as its only proxy, through wrapper when set
// (a script that runs it elsewhere), and returns its DevTools port.
func (f *fixture) launch(t *testing.T, gateURL, wrapper string) int {
	t.Helper()
	path := f.chromium
	if wrapper != "" {
		path = filepath.Join(t.TempDir(), "chromium")
		if err := os.WriteFile(path, []byte("#!/bin/sh\nexec "+wrapper+" "+f.chromium+` "$@"`+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	proc, err := browser.Launch(t.Context(), browser.LaunchOptions{Path: path, ProxyURL: gateURL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Close() })
	u, _ := url.Parse(proc.ControlURL)
	return must(net.LookupPort("tcp", u.Port()))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// recorder is a Network that notes, for each proxy it hands out, its
// credentials and the hosts asked of it.
type recorder struct {
	netx.Network
	mu      sync.Mutex
	proxies []*recorded
}

type recorded struct {
	user, password string
	mu             sync.Mutex
	hosts          []string
}

func (r *recorder) ListenProxy(opts netx.ProxyOptions) (netx.Proxy, error) {
	rec := &recorded{}
	block := opts.Block
	opts.Block = func(host string) bool {
		rec.mu.Lock()
		rec.hosts = append(rec.hosts, host)
		rec.mu.Unlock()
		return block != nil && block(host)
	}
	p, err := r.Network.ListenProxy(opts)
	if err != nil {
		return nil, err
	}
	if ap, ok := p.(netx.AuthProxy); ok {
		rec.user, rec.password = ap.Credentials()
	}
	r.mu.Lock()
	r.proxies = append(r.proxies, rec)
	r.mu.Unlock()
	return p, nil
}

// of returns the proxy that was asked for host.
func (r *recorder) of(t *testing.T, host string) *recorded {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rec := range r.proxies {
		rec.mu.Lock()
		asked := slices.Contains(rec.hosts, host)
		rec.mu.Unlock()
		if asked {
			return rec
		}
	}
	t.Fatalf("no proxy was asked for %s", host)
	return nil
}

// stale is a Network whose proxies give their jobs other credentials
// than their own.
type stale struct {
	netx.Network
	user, password string
}

func (s stale) ListenProxy(opts netx.ProxyOptions) (netx.Proxy, error) {
	p, err := s.Network.ListenProxy(opts)
	if err != nil {
		return nil, err
	}
	return staleProxy{p.(netx.AuthProxy), s}, nil
}

type staleProxy struct {
	netx.AuthProxy
	s stale
}

func (p staleProxy) Credentials() (string, string) { return p.s.user, p.s.password }

// viaGate sends a GET for target straight to the gate with the
// credentials (none when user is empty) and returns the status.
func viaGate(t *testing.T, gateURL, user, password, target string) int {
	t.Helper()
	proxy, _ := url.Parse(gateURL)
	if user != "" {
		proxy.User = url.UserPassword(user, password)
	}
	tr := &http.Transport{Proxy: http.ProxyURL(proxy)}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 20 * time.Second}).Get(target)
	if err != nil {
		t.Fatalf("GET %s through the gate: %v", target, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// newPool is a pool on the remote browser at devtools.
func newPool(t *testing.T, network netx.Network, devtools string) *browser.Pool {
	t.Helper()
	p, err := browser.New(browser.Config{Network: network, RemoteURL: devtools})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func do(t *testing.T, p *browser.Pool, opts browser.JobOptions, fn func(ctx context.Context, j *browser.Job) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	if err := p.Do(ctx, opts, fn); err != nil {
		t.Fatalf("job: %v", err)
	}
}

// TestGatedJobs runs jobs on a browser that reaches the jobs' proxies
// only through the gate: the pages load in full (frames in other
// processes, HTTPS tunnels, fetches) while the policy and the ad filter
// still apply; each job's requests reach its own proxy only; no target
// ever sees the credentials; and credentials that are not a live job's
// get nowhere, whether a page or a client straight to the gate uses
// them.
func TestGatedJobs(t *testing.T) {
	f := newFixture(t)
	gate, err := proxygate.Listen("127.0.0.1:0", "")
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()
	devtools := fmt.Sprintf("http://127.0.0.1:%d", f.launch(t, gate.URL(), ""))
	rec := &recorder{Network: guardnet.Gated(f.guard, gate)}
	pool := newPool(t, rec, devtools)

	// Two jobs at once, one.test and two.test.
	var loaded sync.WaitGroup
	loaded.Add(2)
	var wg sync.WaitGroup
	for _, host := range []string{"one.test", "two.test"} {
		wg.Go(func() {
			do(t, pool, browser.JobOptions{BlockAds: true}, func(ctx context.Context, j *browser.Job) error {
				defer loaded.Wait()
				defer loaded.Done()
				v, err := j.Load(ctx, f.url(host, "/page/"+host), browser.LoadOptions{})
				if err != nil {
					return err
				}
				if v.Status != http.StatusOK {
					t.Errorf("%s: status %d, want 200", host, v.Status)
				}
				f.await(ctx, host+"/img/"+host+".png", host+"/data/"+host, "site.test/frame", "site.test/secure")
				if st := j.Stats(); st.Refused < 1 || st.Blocked < 1 {
					t.Errorf("%s: stats %+v, want the evil.test image refused and the ad blocked", host, st)
				}
				if n := len(j.Requests()); n < 6 {
					t.Errorf("%s: %d requests recorded, want the page's 6 at least", host, n)
				}
				// While the job lives, its credentials reach what the
				// policy allows, and only that.
				own := rec.of(t, host)
				if got := viaGate(t, gate.URL(), own.user, own.password, f.url("site.test", "/direct")); got != http.StatusOK {
					t.Errorf("a live job's credentials to an allowed target: %d, want 200", got)
				}
				if got := viaGate(t, gate.URL(), own.user, own.password, fmt.Sprintf("http://evil.test:%d/", f.forbiddenPort)); got != http.StatusForbidden {
					t.Errorf("a live job's credentials to a denied target: %d, want 403", got)
				}
				return nil
			})
		})
	}
	wg.Wait()
	for _, hostPath := range []string{"one.test/img/one.test.png", "two.test/img/two.test.png", "one.test/data/one.test",
		"two.test/data/two.test", "site.test/frame", "site.test/secure"} {
		if seen, creds := f.saw(hostPath); !seen || creds != "" {
			t.Errorf("%s: served %v with credentials %q; want served, without", hostPath, seen, creds)
		}
	}
	if n := f.forbidden.Accepted(); n != 0 {
		t.Errorf("the denied address got %d connections, want 0", n)
	}
	one, two := rec.of(t, "one.test"), rec.of(t, "two.test")
	if one == two || slices.Contains(one.hosts, "two.test") || slices.Contains(two.hosts, "one.test") {
		t.Errorf("proxies asked for %v and %v: want each job's hosts at its own proxy only", one.hosts, two.hosts)
	}

	// Ended jobs' credentials, and none, are refused.
	for name, c := range map[string]*recorded{"one.test's": one, "two.test's": two, "no": {}} {
		if got := viaGate(t, gate.URL(), c.user, c.password, f.url("site.test", "/after")); got != http.StatusProxyAuthRequired {
			t.Errorf("%s credentials after the job: %d, want 407", name, got)
		}
	}
	if seen, _ := f.saw("site.test/after"); seen {
		t.Error("a request with stale credentials reached the site")
	}

	// A target's own login is the target's: the page shows it, and the
	// proxy's credentials are never offered to it.
	do(t, pool, browser.JobOptions{}, func(ctx context.Context, j *browser.Job) error {
		v, err := j.Load(ctx, f.url("site.test", "/private"), browser.LoadOptions{})
		if err == nil && v.Status != http.StatusUnauthorized {
			t.Errorf("/private: status %d, want 401", v.Status)
		}
		return err
	})
	if _, creds := f.saw("site.test/private"); creds != "" {
		t.Errorf("/private was sent credentials %q", creds)
	}

	// A page that answers with an ended job's credentials loads nothing.
	stalePool := newPool(t, stale{guardnet.Gated(f.guard, gate), one.user, one.password}, devtools)
	do(t, stalePool, browser.JobOptions{}, func(ctx context.Context, j *browser.Job) error {
		_, err := j.Load(ctx, f.url("site.test", "/stale"), browser.LoadOptions{})
		var nav *browser.NavigationError
		if !errors.As(err, &nav) || nav.Reason != "net::ERR_INVALID_AUTH_CREDENTIALS" {
			t.Errorf("loading with stale credentials: %v, want a *browser.NavigationError, net::ERR_INVALID_AUTH_CREDENTIALS", err)
		}
		return nil
	})
	if seen, _ := f.saw("site.test/stale"); seen {
		t.Error("a page with stale credentials reached the site")
	}
}

// TestRemoteHost runs jobs on a browser on another host: Chromium in a
// network namespace of its own, which reaches this one only at the
// gate's address on a veth pair (not loopback), its DevTools forwarded
// to that namespace's address as a remote host would expose it. The
// fixture listens on this namespace's loopback, which the browser cannot
// reach but through the gate: pages load through it while the job
// lives, under the guard's policy (the allow list lets the fixture in,
// a guard without it does not; the denied address is never reached),
// and the gate answers 407 to anyone without a live job's credentials.
func TestRemoteHost(t *testing.T) {
	f := newFixture(t)
	peer := netnstest.NewPeer(t)
	gate, err := proxygate.Listen(netip.AddrPortFrom(peer.Host, 0).String(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()
	port := f.launch(t, gate.URL(), "ip netns exec "+peer.NS)
	devtools := "http://" + peer.Forward(t, port).String()
	rec := &recorder{Network: guardnet.Gated(f.guard, gate)}
	pool := newPool(t, rec, devtools)

	page := f.url("one.test", "/page/one.test")
	do(t, pool, browser.JobOptions{}, func(ctx context.Context, j *browser.Job) error {
		v, err := j.Load(ctx, page, browser.LoadOptions{})
		if err != nil {
			return err
		}
		if v.Status != http.StatusOK {
			t.Errorf("status %d, want 200", v.Status)
		}
		f.await(ctx, "one.test/img/one.test.png", "site.test/frame", "site.test/secure", "one.test/data/one.test")
		if st := j.Stats(); st.Refused < 1 {
			t.Errorf("stats %+v: want the evil.test image refused", st)
		}
		for _, target := range []string{fmt.Sprintf("http://evil.test:%d/", f.forbiddenPort), fmt.Sprintf("http://127.0.0.2:%d/", f.forbiddenPort)} {
			_, err := j.Load(ctx, target, browser.LoadOptions{})
			if !errors.Is(err, netx.ErrNotAllowed) {
				t.Errorf("loading %s: %v, want ErrNotAllowed", target, err)
			}
		}
		return nil
	})
	for _, hostPath := range []string{"one.test/page/one.test", "one.test/img/one.test.png", "site.test/frame", "site.test/secure", "one.test/data/one.test"} {
		if seen, _ := f.saw(hostPath); !seen {
			t.Errorf("%s was not served to the remote browser", hostPath)
		}
	}
	if n := f.forbidden.Accepted(); n != 0 {
		t.Errorf("the denied address got %d connections, want 0", n)
	}
	job := rec.of(t, "one.test")
	for name, c := range map[string]*recorded{"the ended job's": job, "no": {}, "made-up": {user: job.user, password: strings.Repeat("0", len(job.password))}} {
		if got := viaGate(t, gate.URL(), c.user, c.password, f.url("site.test", "/direct")); got != http.StatusProxyAuthRequired {
			t.Errorf("%s credentials to the gate at %s: %d, want 407", name, gate.URL(), got)
		}
	}
	if seen, _ := f.saw("site.test/direct"); seen {
		t.Error("a request without a live job's credentials reached the site")
	}

	// Without the allow list, the fixture on loopback is refused.
	strict := guard.New(guardtest.Resolver(t, "two.test. 60 IN A 127.0.0.1"), guard.NewPolicy(nil))
	do(t, newPool(t, guardnet.Gated(strict, gate), devtools), browser.JobOptions{}, func(ctx context.Context, j *browser.Job) error {
		if _, err := j.Load(ctx, f.url("two.test", "/page/two.test"), browser.LoadOptions{}); !errors.Is(err, netx.ErrNotAllowed) {
			t.Errorf("loading the loopback fixture without the allow list: %v, want ErrNotAllowed", err)
		}
		return nil
	})
	if seen, _ := f.saw("two.test/page/two.test"); seen {
		t.Error("the loopback fixture was served without the allow list")
	}
}
