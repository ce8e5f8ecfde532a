package httpapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/sitediag/sitediag/internal/apitest"
)

func TestBrokenLink(t *testing.T) {
	api := newAPI(t, apitest.Options{})
	dead := deadPort(t)
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			http.Redirect(w, r, "/page", http.StatusFound)
		case "/page":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<!doctype html><title>t</title>
				<a href="/good">good</a> <a href="/good#x">same</a> <img src="/img.png" srcset="/img.png 1x, /img@2x.png 2x">
				<a href="/gone">404</a> <a href="/private">403</a> <a href="/error">500</a> <a href="/slow">slow</a>
				<a href="http://site.test:%s/">refused</a> <a href="http://private.test/">internal</a>
				<a href="/moved">moved</a> <a href="mailto:a@b.test">mail</a> <a href="javascript:void(0)">js</a>`, dead)
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
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(func() {
		close(hang)
		srv.Close()
	})
	link := func(path string) string { return siteURL(srv, path) }
	type item = map[string]any
	withFollow := []any{
		item{"link": link("/good"), "status": 200.0},
		item{"link": link("/img.png"), "status": 200.0},
		item{"link": link("/img@2x.png"), "status": 200.0},
		item{"link": link("/gone"), "status": 404.0},
		item{"link": link("/private"), "status": 403.0},
		item{"link": link("/error"), "status": 500.0},
		item{"link": link("/slow"), "status": 0.0, "error": "timed out"},
		item{"link": "http://site.test:" + dead + "/", "status": 0.0, "error": "connection refused"},
		item{"link": "http://private.test/", "status": 0.0, "error": "TARGET_NOT_ALLOWED"},
		item{"link": link("/moved"), "status": 200.0},
	}

	resp := api.Post(t, "/brokenlink", map[string]any{"url": siteURL(srv, "/")})
	meta, data := resp.WantSuccess(t)
	if !reflect.DeepEqual(data, withFollow) {
		t.Errorf("data:\ngot  %v\nwant %v", data, withFollow)
	}
	wantSummary := map[string]any{"total": 10.0, "successful": 4.0, "redirects": 0.0, "broken": 5.0, "serverError": 1.0,
		"forbidden": 1.0, "timedOut": 1.0}
	if !reflect.DeepEqual(resp.Envelope["summary"], wantSummary) {
		t.Errorf("summary: got %v, want %v", resp.Envelope["summary"], wantSummary)
	}
	if resp.Envelope["message"] != "Found 6 broken links out of 10." {
		t.Errorf("message: got %v", resp.Envelope["message"])
	}
	wantMeta := map[string]any{"url": hostOf(siteURL(srv, "/")), "proxyCountry": "", "followRedirect": true, "redirectedURL": link("/page"),
		"linksFound": 10.0, "test": meta["test"]}
	if !reflect.DeepEqual(meta, wantMeta) {
		t.Errorf("meta: got %v, want %v", meta, wantMeta)
	}

	// Not following: the page itself is a redirect whose body links to
	// /page, and a redirecting link is a redirect.
	resp = api.Post(t, "/brokenlink", map[string]any{"url": link("/"), "followRedirect": false})
	meta, data = resp.WantSuccess(t)
	if want := []any{item{"link": link("/page"), "status": 200.0}}; !reflect.DeepEqual(data, want) || meta["followRedirect"] != false {
		t.Errorf("not following: got %v %v, want %v", meta, data, want)
	}
	if resp.Envelope["message"] != "No broken links found." {
		t.Errorf("message: got %v", resp.Envelope["message"])
	}
}
