package httpapi_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitest"
)

// An audit of a 50 MB page ends within the audit's deadline
// (LighthouseJobTimeout) and a little: #30 saw 117.8 s against the
// default 90. The deadline here is shorter than Lighthouse's own page
// load limit (45 s), so that it is sitediag's deadline that ends the
// audit (the worker killed, 500 LIGHTHOUSE_UNEXPECTED), in a third of
// the time.
func TestLighthouseLargePageKeepsItsDeadline(t *testing.T) {
	needLighthouse(t)
	const deadline = 30 * time.Second
	api := apitest.New(t, apitest.Options{Config: sitediag.Config{LighthouseJobTimeout: deadline}})
	chunk := bytes.Repeat([]byte("<p>A large page, fifty megabytes of paragraphs.</p>\n"), 1<<14)
	site := serveAs(t, api, "large.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Large</title></head><body><h1>Large</h1>`)
		for range 50 << 20 / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		io.WriteString(w, "</body></html>")
	}))
	began := time.Now()
	resp := api.Post(t, "/lighthouse", map[string]any{"url": site + "/"})
	took := time.Since(began)
	t.Logf("%v: %d %.300s", took, resp.Status, resp.Body)
	if resp.Status == http.StatusServiceUnavailable {
		t.Fatalf("no audit ran (%d %.300s): the deadline was not tested", resp.Status, resp.Body)
	}
	if took > deadline+10*time.Second {
		t.Errorf("the audit took %v, past its %v deadline", took, deadline)
	}
}
