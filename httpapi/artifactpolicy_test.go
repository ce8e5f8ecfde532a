package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/guardnet"
	"github.com/sitediag/sitediag/internal/guardtest"
)

// canary is a loopback server that records every request and connection
// made to it: the viewer's own network, which an artifact must not reach.
type canary struct {
	srv   *httptest.Server
	mu    sync.Mutex
	hits  []string
	conns int
}

func newCanary(t *testing.T) *canary {
	c := &canary{}
	c.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.hits = append(c.hits, r.Method+" "+r.URL.String())
		c.mu.Unlock()
	}))
	c.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			c.mu.Lock()
			c.conns++
			c.mu.Unlock()
		}
	}
	c.srv.Start()
	t.Cleanup(c.srv.Close)
	return c
}

func (c *canary) seen() ([]string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.hits...), c.conns
}

// hostilePage reaches for the canary (at base) in every way a document
// can without the user's doing: subresources of each kind, prefetches,
// frames, a refresh, forms and scripts.
func hostilePage(base string) string {
	return strings.NewReplacer("CANARY", base).Replace(`<!doctype html><html><head><title>Hostile</title>
<link rel="stylesheet" href="CANARY/style.css"><link rel="icon" href="CANARY/favicon.ico">
<link rel="preload" as="image" href="CANARY/preload.png"><link rel="prefetch" href="CANARY/prefetch">
<link rel="preconnect" href="CANARY"><link rel="manifest" href="CANARY/manifest.json">
<meta http-equiv="refresh" content="0;url=CANARY/refresh">
<style>@import url("CANARY/import.css"); @font-face { font-family: x; src: url(CANARY/font.woff2) }
body { background: url(CANARY/background.png); font-family: x }</style>
<script src="CANARY/script.js"></script><script>fetch("CANARY/fetch"); new Image().src = "CANARY/js-image"</script>
</head><body><h1 style="color: rgb(200, 0, 0)">Hostile</h1><p>text</p>
<img src="CANARY/img.gif" alt="a"><img srcset="CANARY/srcset.png 2x" alt="b"><picture><source srcset="CANARY/source.png"><img alt="c"></picture>
<svg><image href="CANARY/svg.png" width="10" height="10"/></svg><video poster="CANARY/poster.png" src="CANARY/video.mp4"></video>
<audio src="CANARY/audio.mp3" autoplay></audio><iframe src="CANARY/iframe"></iframe><object data="CANARY/object"></object>
<embed src="CANARY/embed"><form action="CANARY/form" method="post"><input name="a" autofocus></form>
<img src="data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==" alt="inline" id="inline">
</body></html>`)
}

// A page's HTML artifact (/web-scraping, fileOutput) opened in Chromium
// makes no request and no connection to the viewer's loopback, while its
// inline styles and data: images still render (#30).
func TestContentArtifactReachesNothing(t *testing.T) {
	needChromium(t)
	api := apitest.New(t, apitest.Options{})
	c := newCanary(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, hostilePage(c.srv.URL))
	}))
	t.Cleanup(site.Close)
	resp := api.Post(t, "/web-scraping", map[string]any{"url": site.URL + "/", "renderJS": false, "format": []string{"html"}, "fileOutput": true})
	resp.WantSuccess(t)
	link, _ := resp.Envelope["data"].(string)
	if !strings.Contains(link, "/artifacts/") || !strings.HasSuffix(link, ".html") {
		t.Fatalf("data %q is not an HTML artifact", link)
	}
	if hits, conns := c.seen(); len(hits)+conns > 0 {
		t.Fatalf("the scrape itself reached the canary: %v, %d connections", hits, conns)
	}

	openInChromium(t, link, 120*time.Second, func(ctx context.Context, j *browser.Job) error {
		out, err := j.Eval(ctx, `() => JSON.stringify([location.href, getComputedStyle(document.querySelector('h1')).color,
			document.getElementById('inline').naturalWidth])`)
		if err != nil {
			return err
		}
		var s string
		json.Unmarshal(out, &s)
		var got []any
		json.Unmarshal([]byte(s), &got)
		if len(got) != 3 || got[0] != link || got[1] != "rgb(200, 0, 0)" || got[2] != 1.0 {
			t.Errorf("the artifact did not render as its page: [location, h1 colour, data: image width] = %v", got)
		}
		return nil
	})
	if hits, conns := c.seen(); len(hits)+conns > 0 {
		t.Errorf("opening the artifact reached the viewer's loopback: %d requests %v, %d connections", len(hits), hits, conns)
	}
}

// Lighthouse's HTML report, opened in Chromium from its artifact link,
// renders: its own scripts run (and only they are allowed), and the
// category gauges show the scores the API answered (#30: it showed only
// "Lighthouse report requires JavaScript").
func TestLighthouseReportRenders(t *testing.T) {
	api, site := lighthouseFixture(t)
	resp := api.Post(t, "/lighthouse", map[string]any{"url": site + "/", "parameters": []string{"--only-categories=seo,accessibility"}})
	meta, data := resp.WantSuccess(t)
	link, _ := data.(string)
	scores, _ := meta["scores"].(map[string]any)
	want := map[string]string{}
	for id, name := range map[string]string{"seo": "seo", "accessibility": "accessibility"} {
		score, ok := scores[name].(float64)
		if !ok {
			t.Fatalf("no %s score in %v", name, scores)
		}
		want[id] = fmt.Sprint(score)
	}
	header := fetchArtifactHeader(t, link)
	if csp := header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'sha256-") || strings.Contains(csp, "unsafe-inline' 'sha") ||
		strings.Contains(csp, "'unsafe-eval'") || strings.Contains(csp, "script-src *") {
		t.Errorf("report policy %q does not allow exactly its scripts by hash", csp)
	}

	openInChromium(t, link, 120*time.Second, func(ctx context.Context, j *browser.Job) error {
		if ok, err := j.WaitFor(ctx, ".lh-category .lh-gauge__percentage", 30*time.Second); err != nil || !ok {
			return fmt.Errorf("no score gauge appeared (%v)", err)
		}
		out, err := j.Eval(ctx, `() => JSON.stringify(Object.fromEntries([...document.querySelectorAll('.lh-category')].map(c => {
			const g = c.querySelector('.lh-gauge__percentage'), r = g.getBoundingClientRect();
			return [c.closest('[id]') ? c.closest('[id]').id : '', r.width > 0 && r.height > 0 && getComputedStyle(g).visibility === 'visible' ? g.textContent.trim() : 'hidden'];
		})))`)
		if err != nil {
			return err
		}
		var s string
		json.Unmarshal(out, &s)
		var got map[string]string
		json.Unmarshal([]byte(s), &got)
		for id, score := range want {
			if got[id] != score {
				t.Errorf("the report shows %s as %q, want %s visible (gauges: %v)", id, got[id], score, got)
			}
		}
		return nil
	})
}

// fetchArtifactHeader GETs an artifact link and returns the response's
// header.
func fetchArtifactHeader(t *testing.T, link string) http.Header {
	t.Helper()
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", link, resp.Status)
	}
	return resp.Header
}

// openInChromium loads link in a Chromium of the test's own, as a person
// opening the link would (its network allows 127.0.0.1 only), and hands
// the job to use; the job may take jobTimeout, the whole 30 s more.
func openInChromium(t *testing.T, link string, jobTimeout time.Duration, use func(ctx context.Context, j *browser.Job) error) {
	t.Helper()
	driver, err := browser.New(browser.Config{Network: guardnet.Network(guardtest.New(t)), JobTimeout: jobTimeout})
	if err != nil {
		t.Fatal(err)
	}
	defer driver.Close()
	ctx, cancel := context.WithTimeout(context.Background(), jobTimeout+30*time.Second)
	defer cancel()
	err = driver.Do(ctx, browser.JobOptions{Width: 1280, Height: 900}, func(ctx context.Context, j *browser.Job) error {
		if _, err := j.Load(ctx, link, browser.LoadOptions{}); err != nil {
			return err
		}
		return use(ctx, j)
	})
	if err != nil {
		t.Fatal(err)
	}
}
