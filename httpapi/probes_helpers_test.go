package httpapi_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/porttest"
)

// newAPI starts the test API with site.test at 127.0.0.1 and
// private.test at 10.0.0.1 (refused by the policy).
func newAPI(t *testing.T, opts apitest.Options) *apitest.API {
	t.Helper()
	api := apitest.New(t, opts)
	api.DNS.Add(t, "site.test. 60 IN A 127.0.0.1", "private.test. 60 IN A 10.0.0.1")
	return api
}

// siteURL is srv's URL for path with site.test as its host.
func siteURL(srv *httptest.Server, path string) string {
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	scheme := "http"
	if srv.TLS != nil {
		scheme = "https"
	}
	return scheme + "://site.test:" + port + path
}

// errorCase is a request an operation must refuse, and how.
type errorCase struct {
	name    string // the subtest's; "" for path, code and details
	path    string
	body    map[string]any
	status  int
	code    sitediag.Code
	details string // a part of the details; "" for any
}

// wantErrors posts each case to api and checks its error, a subtest each.
func wantErrors(t *testing.T, api *apitest.API, cases []errorCase) {
	t.Helper()
	for _, c := range cases {
		name := c.name
		if name == "" {
			name = c.path + " " + string(c.code) + " " + c.details
		}
		t.Run(name, func(t *testing.T) {
			api.Post(t, c.path, c.body).WantErrorDetails(t, c.status, c.code, c.details)
		})
	}
}

// serveAs serves handler over HTTP as name (an A record to 127.0.0.1
// in api's DNS) until the test ends, and returns its base URL,
// http://name:port.
func serveAs(t *testing.T, api *apitest.API, name string, handler http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	api.DNS.Add(t, name+". 60 IN A 127.0.0.1")
	return "http://" + name + ":" + port(srv.URL)
}

// port is the port of a URL that ends with one.
func port(rawURL string) string { return rawURL[strings.LastIndex(rawURL, ":")+1:] }

// hostOf is the host:port form of a site.test URL (meta.url's host form).
func hostOf(rawURL string) string {
	rest := rawURL[strings.Index(rawURL, "://")+3:]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// deadPort is a loopback TCP port where nothing listens.
func deadPort(t *testing.T) string { return strconv.Itoa(int(porttest.Closed(t))) }

// num reads a JSON number out of a decoded object.
func num(t *testing.T, m map[string]any, key string) float64 {
	t.Helper()
	v, ok := m[key].(float64)
	if !ok {
		t.Fatalf("%s: got %v (%T), want a number", key, m[key], m[key])
	}
	return v
}

// probeSite is the site the HTTP probes' tests diagnose, served over TLS
// with HTTP/2 as site.test (siteURL):
//   - /page, after 5 ms, is page, an HTML page that links to every kind
//     of answer below, sent with repeated headers: Set-Cookie "a=1;
//     Path=/", "b=2" and "c=3; HttpOnly", X-First "1", X-Multi "one" and
//     "two", and Content-Type text/html;
//   - /old, after 5 ms, is a 301 to /page;
//   - /good, /img.png and /img@2x.png answer "ok"; /private 403; /error
//     500; /moved is a 301 to /good; /slow never answers (until the test
//     ends); /loop redirects to itself; /inside to http://private.test/;
//     anything else is 404.
type probeSite struct {
	*httptest.Server
	// page is the body of /page.
	page string
	// dead is a loopback port where nothing listens; page links to
	// http://site.test:dead/.
	dead string
}

// newProbeSite starts the probes' site; it stops when the test ends.
func newProbeSite(t *testing.T) *probeSite {
	t.Helper()
	site := &probeSite{dead: deadPort(t)}
	site.page = fmt.Sprintf(`<!doctype html><title>t</title>
		<a href="/good">good</a> <a href="/good#x">same</a> <img src="/img.png" srcset="/img.png 1x, /img@2x.png 2x">
		<a href="/gone">404</a> <a href="/private">403</a> <a href="/error">500</a> <a href="/slow">slow</a>
		<a href="http://site.test:%s/">refused</a> <a href="http://private.test/">internal</a>
		<a href="/moved">moved</a> <a href="mailto:a@b.test">mail</a> <a href="javascript:void(0)">js</a>`, site.dead)
	hang := make(chan struct{})
	site.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			h := w.Header()
			h["Set-Cookie"] = []string{"a=1; Path=/", "b=2", "c=3; HttpOnly"}
			h["X-First"] = []string{"1"}
			h["X-Multi"] = []string{"one", "two"}
			h.Set("Content-Type", "text/html")
			time.Sleep(5 * time.Millisecond)
			w.Write([]byte(site.page))
		case "/old":
			time.Sleep(5 * time.Millisecond)
			http.Redirect(w, r, "/page", http.StatusMovedPermanently)
		case "/good", "/img.png", "/img@2x.png":
			w.Write([]byte("ok"))
		case "/private":
			w.WriteHeader(http.StatusForbidden)
		case "/error":
			w.WriteHeader(http.StatusInternalServerError)
		case "/moved":
			http.Redirect(w, r, "/good", http.StatusMovedPermanently)
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-hang:
			}
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/inside":
			http.Redirect(w, r, "http://private.test/", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	site.EnableHTTP2 = true
	site.StartTLS()
	t.Cleanup(func() {
		close(hang)
		site.Close()
	})
	return site
}

// url is the site's URL for path (siteURL).
func (s *probeSite) url(path string) string { return siteURL(s.Server, path) }
