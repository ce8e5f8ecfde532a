package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/dnstest"
	"github.com/sitediag/sitediag/internal/exampletest"
)

// TestLibraryRun runs the example against a local page with no
// SITEDIAG_* setting: the full SSRF policy refuses loopback, and the
// example reports that documented error and exits 1.
func TestLibraryRun(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	p := exampletest.Start(t, exampletest.Build(t), nil, srv.URL)
	p.WaitFor(t, regexp.MustCompile(`^refused: the target is on a network this client may not reach$`), 30*time.Second)
	if code := p.Exit(t, 30*time.Second); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
}

// TestLibraryRunOffline runs the example as its doc comment says: a
// name of a local DNS server's, on loopback, which
// SITEDIAG_ALLOW_NETWORKS exempts.
func TestLibraryRunOffline(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			http.Redirect(w, r, "/home", http.StatusMovedPermanently)
		}
	}))
	defer srv.Close()
	dns := dnstest.Start(t)
	dns.Add(t, "site.test. 60 IN A 127.0.0.1")
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p := exampletest.Start(t, exampletest.Build(t),
		[]string{"SITEDIAG_ALLOW_NETWORKS=127.0.0.1/32", "SITEDIAG_DNS_SERVERS=" + dns.Addr},
		"http://site.test:"+port+"/")
	p.WaitFor(t, regexp.MustCompile(`^site\.test:\d+ is up: 200 OK \(final URL http://site\.test:\d+/home\)$`), 30*time.Second)
	p.WaitFor(t, regexp.MustCompile(`^  2\. 200 http://site\.test:\d+/home$`), 30*time.Second)
	if code := p.Exit(t, 30*time.Second); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
}
