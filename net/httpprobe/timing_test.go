package httpprobe_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/guardtest"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/httpprobe"
	"github.com/sitediag/sitediag/net/netx"
)

func TestMeasure(t *testing.T) {
	g := guardtest.New(t)
	body := strings.Repeat("x", 100_000)
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond) // server think time, lands in Wait
		w.Header().Add("Set-Cookie", "a=1")
		w.Header().Add("Set-Cookie", "b=2")
		w.Write([]byte(body))
	})
	mux.HandleFunc("/hop", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(10 * time.Millisecond)
		http.Redirect(w, r, "/page", http.StatusFound)
	})
	srv := httptest.NewUnstartedServer(mux)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	newClient := func(wrap func(net.Conn) net.Conn) netx.Doer {
		return g.NewHTTPClient(guard.HTTPOptions{WrapConn: wrap})
	}

	for _, tc := range []struct {
		name      string
		path      string
		opts      httpprobe.MeasureOptions
		hops      int
		bytesRead int64
	}{
		{"one request", "/page", httpprobe.MeasureOptions{}, 1, int64(len(body))},
		{"a redirect followed", "/hop", httpprobe.MeasureOptions{Follow: true}, 2, int64(len(body))},
		{"a redirect not followed", "/hop", httpprobe.MeasureOptions{}, 1, -1},
		{"head only", "/page", httpprobe.MeasureOptions{SkipBody: true}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := httpprobe.Measure(context.Background(), newClient, siteURL(t, srv, tc.path), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			p := m.Phases
			for name, d := range map[string]time.Duration{"dns": p.DNS, "connect": p.Connect, "tls": p.TLS, "send": p.Send,
				"wait": p.Wait, "download": p.Download, "redirect": m.Redirect} {
				if d < 0 {
					t.Errorf("%s is negative: %v", name, d)
				}
			}
			if p.DNS == 0 || p.TLS == 0 {
				t.Errorf("dns %v and tls %v should be measured for a name over https", p.DNS, p.TLS)
			}
			// The phases add up to the final request's time to first
			// byte; redirects come before it.
			if got, want := m.Redirect+p.DNS+p.Connect+p.TLS+p.Send+p.Wait, m.TTFB; got != want {
				t.Errorf("redirect+phases = %v, want ttfb %v", got, want)
			}
			if m.TTFB > m.Total || m.TTFB+p.Download != m.Total {
				t.Errorf("ttfb %v + download %v should be total %v", m.TTFB, p.Download, m.Total)
			}
			if len(m.Hops) != tc.hops {
				t.Errorf("got %d hops, want %d", len(m.Hops), tc.hops)
			}
			if tc.hops > 1 && m.Redirect < 10*time.Millisecond {
				t.Errorf("redirect %v should include the redirect's 10ms", m.Redirect)
			}
			if tc.hops == 1 && m.Redirect != 0 {
				t.Errorf("redirect %v, want 0", m.Redirect)
			}
			if tc.bytesRead >= 0 && m.BytesRead != tc.bytesRead {
				t.Errorf("bytesRead %d, want %d", m.BytesRead, tc.bytesRead)
			}
			if m.Protocol != "HTTP/2.0" || m.RemoteIP != "127.0.0.1" {
				t.Errorf("protocol %q, remote %q; want HTTP/2.0, 127.0.0.1", m.Protocol, m.RemoteIP)
			}
		})
	}
}

func TestMeasureErrors(t *testing.T) {
	g := guardtest.New(t)
	newClient := func(wrap func(net.Conn) net.Conn) netx.Doer {
		return g.NewHTTPClient(guard.HTTPOptions{WrapConn: wrap})
	}
	loop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path, http.StatusFound)
	}))
	defer loop.Close()
	ctx := context.Background()
	var fetchErr *httpprobe.FetchError
	for _, tc := range []struct {
		name   string
		target string
		check  func(error) bool
	}{
		{"refused", "http://site.test:" + deadPort(t) + "/", func(err error) bool { return errors.As(err, &fetchErr) }},
		{"not resolved", "http://nowhere.test/", func(err error) bool {
			var re *guard.ResolveError
			return errors.As(err, &re)
		}},
		{"not allowed", "http://private.test/", func(err error) bool { return errors.Is(err, netx.ErrNotAllowed) }},
		{"loop", siteURL(t, loop, "/").String(), func(err error) bool { return errors.Is(err, httpprobe.ErrTooManyRedirects) }},
	} {
		u, _ := url.Parse(tc.target)
		_, err := httpprobe.Measure(ctx, newClient, u, httpprobe.MeasureOptions{Follow: true})
		if !tc.check(err) {
			t.Errorf("%s: got %v", tc.name, err)
		}
	}
}
