package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/apitest"
)

// A page that never finishes loading (an image, a script in its head or
// a stylesheet that never comes, a document that never ends) is read as
// it was when the timeout came, by every page-content operation alike:
// 200 with loadTimedOut. #30 saw /mixedcontent and /brand answer 422
// after 31 s where /metascraping and /web-scraping answered so; on this
// code only /brand still failed, on a page whose parsing stopped in its
// head (500 BRAND_FAILED: its extraction needed a body).
func TestPageContentOnAPageThatNeverLoads(t *testing.T) {
	needChromium(t)
	api := apitest.New(t, apitest.Options{})
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	hang := func(r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}
	const page = `<!doctype html><html><head><title>Never Loads</title><meta property="og:site_name" content="Never Loads">` +
		`</head><body><h1>Never Loads</h1><p>It never finishes.</p>`
	api.DNS.Add(t, "never.test. 60 IN A 127.0.0.1")
	warm := false
	for _, site := range []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"an image that never comes", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/hang" {
				hang(r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, page+`<img src="/hang" alt="hang"></body></html>`)
		}},
		{"a script in the head that never comes", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/hang.js" {
				hang(r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, strings.Replace(page, "</head>", `<script src="/hang.js"></script></head>`, 1)+`</body></html>`)
		}},
		{"a stylesheet that never comes", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/hang.css" {
				hang(r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, strings.Replace(page, "</head>", `<link rel="stylesheet" href="/hang.css"></head>`, 1)+`</body></html>`)
		}},
		{"a document that never ends", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, page+strings.Repeat("<!-- padding -->", 1024))
			w.(http.Flusher).Flush()
			hang(r)
		}},
	} {
		srv := httptest.NewServer(site.handler)
		t.Cleanup(srv.Close)
		target := "http://never.test:" + port(srv.URL) + "/"
		if !warm {
			// The browser's start counts against a job's deadline: start it first.
			api.Post(t, "/screenshot", map[string]any{"url": target, "timeout": 30})
			warm = true
		}
		for _, path := range []string{"/metascraping", "/web-scraping", "/mixedcontent", "/brand"} {
			t.Run(site.name+path, func(t *testing.T) {
				began := time.Now()
				resp := api.Post(t, path, map[string]any{"url": target, "timeout": 8})
				meta, _ := resp.WantSuccess(t)
				if took := time.Since(began); took > 20*time.Second {
					t.Errorf("took %s, want about the 8 s timeout", took)
				}
				if path != "/brand" { // its meta is the spec's
					wantMeta(t, meta, map[string]any{"loadTimedOut": true})
				}
			})
		}
	}
}

// A page of 100,000 elements and no script keeps Chromium busy laying it
// out, not running scripts: it is not reported as "its scripts kept it
// busy" (#30), while a page whose script never yields still is
// (TestBrowserOperationsOnABusyPage).
func TestLargeScriptlessPageIsNotScriptBusy(t *testing.T) {
	needChromium(t)
	api := apitest.New(t, apitest.Options{})
	var page strings.Builder
	page.WriteString(`<!doctype html><html><head><title>Large</title><style>td { border: 1px solid #999 } .c:nth-child(odd) { color: #036 }</style></head><body><h1>Large</h1><table>`)
	for i := range 10_000 {
		fmt.Fprintf(&page, `<tr><td class="c">%d</td><td class="c">a</td><td class="c">b</td><td class="c">c</td><td class="c">d</td><td class="c">e</td><td class="c">f</td><td class="c">g</td><td class="c">h</td></tr>`, i)
	}
	page.WriteString(`</table></body></html>`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, page.String())
	}))
	t.Cleanup(srv.Close)
	target := srv.URL + "/"
	api.Post(t, "/screenshot", map[string]any{"url": target, "timeout": 60})
	for _, path := range []string{"/metascraping", "/screenshot"} {
		t.Run(path, func(t *testing.T) {
			resp := api.Post(t, path, map[string]any{"url": target, "timeout": 30})
			meta, _ := resp.WantSuccess(t)
			if meta["scriptsStopped"] != false {
				t.Errorf("scriptsStopped %v, want false: the page has no script", meta["scriptsStopped"])
			}
			if msg, _ := resp.Envelope["message"].(string); strings.Contains(msg, "scripts") {
				t.Errorf("message %q blames the page's scripts; it has none", msg)
			}
		})
	}
}
