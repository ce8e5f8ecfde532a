package linkcheck_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/guardtest"
	"github.com/sitediag/sitediag/internal/porttest"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/httpprobe"
	"github.com/sitediag/sitediag/net/linkcheck"
	"github.com/sitediag/sitediag/net/netx"
)

// fixture is a site whose page links to good, redirecting, 404, 403,
// 500, hanging, refused, HEAD-refusing and guard-refused targets.
type fixture struct {
	srv      *httptest.Server
	base     string // http://site.test:port
	deadPort string
	// heads and gets count requests per path.
	mu          sync.Mutex
	heads, gets map[string]int
	hang        chan struct{}
}

func newFixture(t *testing.T) (*fixture, *guard.Guard) {
	t.Helper()
	g := guardtest.New(t)

	f := &fixture{deadPort: strconv.Itoa(int(porttest.Closed(t))), heads: map[string]int{}, gets: map[string]int{}, hang: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		close(f.hang)
		f.srv.Close()
	})
	_, port, _ := net.SplitHostPort(f.srv.Listener.Addr().String())
	f.base = "http://site.test:" + port
	return f, g
}

func (f *fixture) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	if r.Method == http.MethodHead {
		f.heads[r.URL.Path]++
	} else {
		f.gets[r.URL.Path]++
	}
	f.mu.Unlock()
	switch r.URL.Path {
	case "/page":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<html><head><link rel="stylesheet" href="/style.css"><link rel="preconnect" href="http://private.test/">
			</head><body>
			<a href="/ok">ok</a> <a href="/ok#again">dup</a> <a href="/moved">moved</a>
			<a href="/missing">404</a> <a href="/secret">403</a> <a href="/boom">500</a>
			<a href="/slow">slow</a> <a href="http://site.test:%s/">refused</a>
			<a href="http://private.test/admin">internal</a> <img src="/nohead.png">
			<a href="mailto:x@site.test">mail</a> <a href="http://user:pw@site.test/">userinfo</a>
			</body></html>`, f.deadPort)
	case "/start":
		http.Redirect(w, r, "/page", http.StatusFound)
	case "/ok", "/style.css":
		w.Write([]byte("fine"))
	case "/moved":
		http.Redirect(w, r, "/ok", http.StatusMovedPermanently)
	case "/missing":
		http.NotFound(w, r)
	case "/secret":
		w.WriteHeader(http.StatusForbidden)
	case "/boom":
		w.WriteHeader(http.StatusInternalServerError)
	case "/slow":
		select {
		case <-r.Context().Done():
		case <-f.hang:
		}
	case "/nohead.png":
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Write([]byte("png"))
	case "/plain":
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(`<a href="/ok">not html</a>`))
	default:
		http.NotFound(w, r)
	}
}

func TestCheckPage(t *testing.T) {
	f, g := newFixture(t)
	client := g.NewHTTPClient(guard.HTTPOptions{})
	defer client.CloseIdleConnections()

	type row struct {
		link   string
		status int
		err    string
	}
	common := []row{
		{"/style.css", 200, ""}, {"/ok", 200, ""},
		{"/missing", 404, ""}, {"/secret", 403, ""}, {"/boom", 500, ""},
		{"/slow", 0, "timed out"},
		{"http://site.test:" + f.deadPort + "/", 0, "connection refused"},
		{"http://private.test/admin", 0, linkcheck.ErrorNotAllowed},
		{"/nohead.png", 200, ""},
		{"http://user:pw@site.test/", 0, linkcheck.ErrorNotAllowed},
	}
	for _, tc := range []struct {
		name    string
		follow  bool
		moved   row
		summary linkcheck.Summary
	}{
		{"following redirects", true, row{"/moved", 200, ""},
			linkcheck.Summary{Total: 11, Successful: 4, Broken: 6, ServerError: 1, Forbidden: 1, TimedOut: 1}},
		{"not following", false, row{"/moved", 301, ""},
			linkcheck.Summary{Total: 11, Successful: 3, Redirects: 1, Broken: 6, ServerError: 1, Forbidden: 1, TimedOut: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := append(common[:2:2], tc.moved)
			want = append(want, common[2:]...)
			page, _ := url.Parse(f.base + "/page")
			report, err := linkcheck.CheckPage(context.Background(), client, page, linkcheck.Options{Follow: tc.follow, LinkTimeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if len(report.Results) != len(want) {
				t.Fatalf("got %d results, want %d: %+v", len(report.Results), len(want), report.Results)
			}
			for i, w := range want {
				link := w.link
				if strings.HasPrefix(link, "/") {
					link = f.base + link
				}
				got := report.Results[i]
				if got.Link != link || got.Status != w.status || got.Error != w.err {
					t.Errorf("result %d: got {%s %d %q}, want {%s %d %q}", i, got.Link, got.Status, got.Error, link, w.status, w.err)
				}
			}
			if report.Summary != tc.summary {
				t.Errorf("summary: got %+v, want %+v", report.Summary, tc.summary)
			}
		})
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.heads["/ok"] == 0 || f.gets["/ok"] != 0 {
		t.Errorf("/ok: %d HEAD, %d GET; want HEAD only", f.heads["/ok"], f.gets["/ok"])
	}
	if f.heads["/nohead.png"] == 0 || f.gets["/nohead.png"] == 0 {
		t.Errorf("/nohead.png: %d HEAD, %d GET; want GET after the refused HEAD", f.heads["/nohead.png"], f.gets["/nohead.png"])
	}
}

func TestCheckPageFollowsThePageRedirect(t *testing.T) {
	f, g := newFixture(t)
	client := g.NewHTTPClient(guard.HTTPOptions{})
	defer client.CloseIdleConnections()
	start, _ := url.Parse(f.base + "/start")
	report, err := linkcheck.CheckPage(context.Background(), client, start, linkcheck.Options{Follow: true, LinkTimeout: 2 * time.Second, MaxLinks: 3})
	if err != nil {
		t.Fatal(err)
	}
	if report.URL != f.base+"/page" || report.Found != 11 || len(report.Results) != 3 {
		t.Errorf("got url %s, %d found, %d checked; want %s/page, 11, 3", report.URL, report.Found, len(report.Results), f.base)
	}
	// Not following, the redirect itself is the page: its body (Go's
	// "<a href=/page>Found</a>") has the one link.
	report, err = linkcheck.CheckPage(context.Background(), client, start, linkcheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if report.URL != f.base+"/start" || len(report.Results) != 1 || report.Results[0].Link != f.base+"/page" ||
		report.Summary != (linkcheck.Summary{Total: 1, Successful: 1}) {
		t.Errorf("got %+v, want the redirect's one link", report)
	}
	plain, _ := url.Parse(f.base + "/plain")
	if report, err = linkcheck.CheckPage(context.Background(), client, plain, linkcheck.Options{}); err != nil || len(report.Results) != 0 {
		t.Errorf("text/plain page: got %+v, %v; want no links", report, err)
	}
}

func TestCheckPageErrors(t *testing.T) {
	f, g := newFixture(t)
	client := g.NewHTTPClient(guard.HTTPOptions{})
	defer client.CloseIdleConnections()
	ctx := context.Background()
	var fetchErr *httpprobe.FetchError
	for _, tc := range []struct {
		page  string
		check func(error) bool
	}{
		{"http://private.test/", func(err error) bool { return errors.Is(err, netx.ErrNotAllowed) }},
		{"http://site.test:" + f.deadPort + "/", func(err error) bool { return errors.As(err, &fetchErr) }},
	} {
		u, _ := url.Parse(tc.page)
		if _, err := linkcheck.CheckPage(ctx, client, u, linkcheck.Options{}); !tc.check(err) {
			t.Errorf("%s: got %v", tc.page, err)
		}
	}
}

func TestCheckBounds(t *testing.T) {
	g := guardtest.New(t, "a.test. 60 IN A 127.0.0.1", "b.test. 60 IN A 127.0.0.1")
	var inFlight, peak atomic.Int32
	perHost := map[string]*atomic.Int32{"a.test": {}, "b.test": {}}
	perHostPeak := map[string]*atomic.Int32{"a.test": {}, "b.test": {}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.Host)
		n, h := inFlight.Add(1), perHost[host].Add(1)
		raise(&peak, n)
		raise(perHostPeak[host], h)
		time.Sleep(20 * time.Millisecond)
		perHost[host].Add(-1)
		inFlight.Add(-1)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	var links []linkcheck.Link
	for i := range 20 {
		for _, host := range []string{"a.test", "b.test"} {
			links = append(links, link(fmt.Sprintf("http://%s:%s/%d", host, port, i)))
		}
	}
	client := g.NewHTTPClient(guard.HTTPOptions{})
	defer client.CloseIdleConnections()
	results, err := linkcheck.Check(context.Background(), client, links, linkcheck.Options{Concurrency: 5, PerHost: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Status != 200 {
			t.Errorf("%s: %d %s", r.Link, r.Status, r.Error)
		}
	}
	if peak.Load() > 5 || perHostPeak["a.test"].Load() > 3 || perHostPeak["b.test"].Load() > 3 {
		t.Errorf("peaks: %d overall (max 5), %d and %d per host (max 3)", peak.Load(), perHostPeak["a.test"].Load(), perHostPeak["b.test"].Load())
	}
}

func raise(peak *atomic.Int32, n int32) {
	for {
		p := peak.Load()
		if n <= p || peak.CompareAndSwap(p, n) {
			return
		}
	}
}

func link(raw string) linkcheck.Link {
	u, _ := url.Parse(raw)
	return linkcheck.Link{URL: u, Kind: "a"}
}
