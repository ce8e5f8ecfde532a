package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitest"
)

// gzipBomb is 1 GiB of zeros, gzip-compressed (about 1 MiB).
func gzipBomb(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for range 1 << 10 {
		zw.Write(zeros)
	}
	zw.Close()
	return buf.Bytes()
}

// openFiles counts the process's file descriptors.
func openFiles(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(entries)
}

// TestHostileTargets points the HTTP operations at servers that try to
// exhaust them. Each ends within its bound with its documented outcome,
// and goroutines and file descriptors return to their baseline.
func TestHostileTargets(t *testing.T) {
	bomb := gzipBomb(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		chunk := bytes.Repeat([]byte("<p>endless</p>\n"), 4096)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/bomb", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Type", "text/html")
		w.Write(bomb)
	})
	mux.HandleFunc("/headers", func(w http.ResponseWriter, _ *http.Request) {
		for i := range 1000 {
			w.Header().Set(fmt.Sprintf("X-Filler-%d", i), strings.Repeat("h", 1000))
		}
	})
	mux.HandleFunc("/hop/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/hop/"), "%d", &n)
		if n < 1000 {
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n+1), http.StatusFound)
		}
	})
	mux.HandleFunc("/manylinks", func(w http.ResponseWriter, _ *http.Request) {
		var b strings.Builder
		b.WriteString("<!doctype html><title>links</title>")
		for i := range 100_000 {
			fmt.Fprintf(&b, `<a href="/l/%d">%d</a>`, i, i)
		}
		io.WriteString(w, b.String())
	})
	mux.HandleFunc("/l/", func(http.ResponseWriter, *http.Request) {})
	site := httptest.NewServer(mux)
	defer site.Close()

	api := apitest.New(t, apitest.Options{Config: sitediag.Config{Timeout: 30 * time.Second}})
	goroutines, files := runtime.NumGoroutine(), openFiles(t)
	rows := []struct {
		name, path, target string
		status             int
		code               sitediag.Code
		bound              time.Duration
	}{
		{"endless body, /loadtime reads to the 10 MiB cap", "/loadtime", "/endless", 200, "", 20 * time.Second},
		{"endless body, /up needs the head only", "/up", "/endless", 200, "", 5 * time.Second},
		{"gzip bomb, /metascraping without JS", "/metascraping", "/bomb", 422, sitediag.CodeNoMetadata, 20 * time.Second},
		{"1 MB of headers", "/httpheader", "/headers", 422, sitediag.CodeUnableToConnect, 5 * time.Second},
		{"1000-hop redirect chain", "/redirectcheck", "/hop/0", 429, sitediag.CodeTooManyRedirects, 5 * time.Second},
		{"100 000 links", "/brokenlink", "/manylinks", 200, "", 30 * time.Second},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			body := map[string]any{"url": site.URL + row.target}
			if row.path == "/metascraping" {
				body["renderJS"] = false
			}
			start := time.Now()
			resp := api.Post(t, row.path, body)
			if elapsed := time.Since(start); elapsed > row.bound {
				t.Errorf("took %v, want at most %v", elapsed, row.bound)
			}
			if row.code != "" {
				resp.WantError(t, row.status, row.code)
			} else if resp.Status != row.status {
				t.Errorf("status %d, want %d: %.300s", resp.Status, row.status, resp.Body)
			}
		})
	}
	site.CloseClientConnections()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > goroutines+5 || openFiles(t) > files+5 {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines %d (baseline %d), files %d (baseline %d) after the hostile targets",
				runtime.NumGoroutine(), goroutines, openFiles(t), files)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
