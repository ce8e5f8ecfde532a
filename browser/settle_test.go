package browser

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"
)

// A page without scripts gets no quiet period after its load event, but
// what its layout asks for (a web font, a background image) is requested
// before the wait ends and waited for: each has been served by the time
// Load returns, however late the layout would have come by itself.
func TestLoadWaitsForWhatTheLayoutAsksFor(t *testing.T) {
	e := newEnv(t, Config{})
	var mu sync.Mutex
	served := map[string]bool{}
	slow := func(path, contentType string) {
		e.site.handle(path, func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(300 * time.Millisecond)
			w.Header().Set("Content-Type", contentType)
			w.Write([]byte("not really a " + contentType))
			mu.Lock()
			served[path] = true
			mu.Unlock()
		})
	}
	slow("/font.woff2", "font/woff2")
	slow("/bg.png", "image/png")
	page := e.site.page("/styled", `<!doctype html><style>
@font-face { font-family: Slow; src: url(/font.woff2) format("woff2") }
body { background: url(/bg.png) } p { font-family: Slow, sans-serif }
</style><p>Text in a web font</p>`)
	for _, opts := range []LoadOptions{{}, {HideCookie: true, SkipCaptcha: true}} {
		mu.Lock()
		clear(served)
		mu.Unlock()
		v, _, err := e.load(t, page, opts)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := map[string]bool{"/font.woff2": served["/font.woff2"], "/bg.png": served["/bg.png"]}
		mu.Unlock()
		if !v.Loaded || !got["/font.woff2"] || !got["/bg.png"] {
			t.Errorf("options %+v: visit %+v, served when Load returned %v; want the page loaded and both served", opts, v, got)
		}
	}
}

// What the check after the load finds: whether the page can run script
// (which decides the quiet period), the challenge it shows; and a consent
// platform's banner hidden and its scroll lock lifted.
func TestCheck(t *testing.T) {
	e := newEnv(t, Config{})
	for _, tc := range []struct {
		name, html string
		opts       LoadOptions
		want       pageCheck
	}{
		{"plain", `<p>plain`, LoadOptions{SkipCaptcha: true}, pageCheck{}},
		{"script", `<p>x<script>1</script>`, LoadOptions{}, pageCheck{Scripts: true}},
		{"handler", `<body onclick="x()"><p>x`, LoadOptions{}, pageCheck{Scripts: true}},
		{"frame", `<iframe src="about:blank"></iframe>`, LoadOptions{}, pageCheck{Scripts: true}},
		{"challenge", `<title>Just a moment...</title><p>checking`, LoadOptions{SkipCaptcha: true}, pageCheck{Challenge: "cloudflare"}},
		{"challenge unasked", `<title>Just a moment...</title><p>checking`, LoadOptions{}, pageCheck{}},
	} {
		page := e.site.page("/"+tc.name, `<!doctype html>`+tc.html)
		e.do(t, JobOptions{}, func(ctx context.Context, j *Job) error {
			if _, err := j.Load(ctx, page, LoadOptions{}); err != nil {
				return err
			}
			got, err := j.check(ctx, tc.opts)
			if err != nil {
				return err
			}
			if got != tc.want {
				t.Errorf("%s: check = %+v, want %+v", tc.name, got, tc.want)
			}
			return nil
		})
	}
	locked := e.site.page("/locked", `<!doctype html><body style="overflow:hidden"><div id="onetrust-banner-sdk">cookies?</div>`)
	e.do(t, JobOptions{}, func(ctx context.Context, j *Job) error {
		if _, err := j.Load(ctx, locked, LoadOptions{}); err != nil {
			return err
		}
		if _, err := j.check(ctx, LoadOptions{HideCookie: true}); err != nil {
			return err
		}
		got, err := j.Eval(ctx, `() => document.body.style.overflow + ' ' + getComputedStyle(document.getElementById('onetrust-banner-sdk')).display`)
		if err != nil {
			return err
		}
		if string(got) != `"auto none"` {
			t.Errorf("body overflow and banner display %s after the check, want \"auto none\"", got)
		}
		return nil
	})
}
