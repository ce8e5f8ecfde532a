package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	mdns "github.com/miekg/dns"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/procs"
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
	mux.HandleFunc("/large", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!doctype html><title>Large</title><body>")
		chunk := bytes.Repeat([]byte("<p>large</p>\n"), 1<<16)
		for range 50 << 20 / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
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
	before := takeBaseline(t, api)
	rows := []struct {
		name, path, target string
		status             int
		code               sitediag.Code
		bound              time.Duration
	}{
		{"endless body, /loadtime reads to the 10 MiB cap", "/loadtime", "/endless", 200, "", 20 * time.Second},
		{"endless body, /up needs the head only", "/up", "/endless", 200, "", 5 * time.Second},
		// Past MaxDocumentBytes a page without JS fails, as documented,
		// rather than being processed truncated (#30).
		{"gzip bomb, /metascraping without JS", "/metascraping", "/bomb", 500, sitediag.CodeCrawlFailed, 20 * time.Second},
		{"endless body, /metascraping without JS", "/metascraping", "/endless", 500, sitediag.CodeCrawlFailed, 20 * time.Second},
		{"50 MB page, /web-scraping without JS", "/web-scraping", "/large", 500, sitediag.CodeCrawlFailed, 20 * time.Second},
		{"gzip bomb, /web-scraping without JS", "/web-scraping", "/bomb", 500, sitediag.CodeCrawlFailed, 20 * time.Second},
		{"1 MB of headers", "/httpheader", "/headers", 422, sitediag.CodeUnableToConnect, 5 * time.Second},
		{"1000-hop redirect chain", "/redirectcheck", "/hop/0", 429, sitediag.CodeTooManyRedirects, 5 * time.Second},
		{"100 000 links", "/brokenlink", "/manylinks", 200, "", 30 * time.Second},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			body := map[string]any{"url": site.URL + row.target}
			if row.path == "/metascraping" || row.path == "/web-scraping" {
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
	before.wait(t)
}

// baseline is what the test process holds: goroutines, open files and
// the processes below it (a browser's included).
type baseline struct {
	api                      *apitest.API
	goroutines, files, procs int
}

// takeBaseline counts what the process holds before a test of api.
func takeBaseline(t *testing.T, api *apitest.API) baseline {
	return baseline{api, runtime.NumGoroutine(), openFiles(t), len(procs.Descendants(os.Getpid()))}
}

// wait fails t unless the process comes back to b within 10 s, once the
// API client's idle connections are closed: a few goroutines and files
// more at most, and one process more at most (a browser's renderer for
// its next page may come and go).
func (b baseline) wait(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b.api.Server.Client().CloseIdleConnections()
		now := takeBaseline(t, b.api)
		if now.goroutines <= b.goroutines+5 && now.files <= b.files+5 && now.procs <= b.procs+1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines %d, files %d, processes %d; want about %d, %d and %d as before the hostile targets",
				now.goroutines, now.files, now.procs, b.goroutines, b.files, b.procs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestBrowserOperationsOnAPageThatAllocatesWithoutBound: a page whose
// script grows its heap until it runs out of memory. Either its renderer
// crashes at the heap cap (the operation's 500 *_FAILED) or its scripts
// are stopped first (a success that says so); either way within the
// timeout, the next job runs on a browser that works, and nothing the
// crash left behind stays: no extra browser, renderer or zombie.
func TestBrowserOperationsOnAPageThatAllocatesWithoutBound(t *testing.T) {
	needChromium(t)
	api := apitest.New(t, apitest.Options{})
	site := startPages(t, api)
	site.handle("/hog", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><title>Hog</title><h1>Hog</h1>`+
			`<script>const a = []; for (;;) a.push(new Array(1 << 20).fill(1.5))</script>`)
	})
	// The browser's start counts against a job's deadline: start it first.
	api.Post(t, "/screenshot", map[string]any{"url": site.url("/")}).WantSuccess(t)
	before := takeBaseline(t, api)
	const timeout = 30
	for _, op := range []struct {
		path   string
		failed sitediag.Code
	}{
		{"/screenshot", sitediag.CodeScreenshotFailed},
		{"/url2pdf", sitediag.CodePDFConversionFailed},
		{"/metascraping", sitediag.CodeCrawlFailed},
		{"/mixedcontent", sitediag.CodeMixedContentCheckFailed},
	} {
		t.Run(op.path, func(t *testing.T) {
			began := time.Now()
			resp := api.Post(t, op.path, map[string]any{"url": site.url("/hog"), "timeout": timeout})
			if took := time.Since(began); took > timeout*time.Second+5*time.Second {
				t.Errorf("took %s, want about the %d s timeout at most", took, timeout)
			}
			if resp.Status == http.StatusOK {
				meta, _ := resp.WantSuccess(t)
				wantMeta(t, meta, map[string]any{"scriptsStopped": true})
				t.Logf("scripts stopped before the renderer ran out of memory")
			} else {
				resp.WantError(t, http.StatusInternalServerError, op.failed)
				if d, _ := resp.Envelope["details"].(string); !strings.Contains(d, "crashed") {
					t.Errorf("details %q, want them to say the browser crashed", d)
				}
			}
			api.Post(t, "/screenshot", map[string]any{"url": site.url("/")}).WantSuccess(t)
		})
	}
	before.wait(t)
}

// halfServerHello reads the client's first TLS record and answers with
// the first bytes of a ServerHello record: a record header announcing 80
// bytes, and the start of the handshake message.
func halfServerHello(c net.Conn) {
	head := make([]byte, 5)
	if _, err := io.ReadFull(c, head); err != nil {
		return
	}
	io.CopyN(io.Discard, c, int64(binary.BigEndian.Uint16(head[3:])))
	c.Write([]byte{0x16, 0x03, 0x03, 0x00, 0x50, 0x02, 0x00, 0x00, 0x4c, 0x03, 0x03})
}

// TestTLSServerThatStallsMidHandshake: a server that takes the
// ClientHello and then says nothing, or half a ServerHello, and holds the
// connection. /tlsscan gives up on it after its probe timeout (5 s) with
// TLS_HANDSHAKE_FAILED; /httpheader and /up after the TLS handshake bound
// (10 s), as a target that did not answer.
func TestTLSServerThatStallsMidHandshake(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	servers := []struct {
		name  string
		greet func(net.Conn)
	}{
		{"after the ClientHello", func(c net.Conn) { io.ReadFull(c, make([]byte, 5)) }},
		{"mid-ServerHello", halfServerHello},
	}
	before := takeBaseline(t, api)
	// The servers close with the subtest; as in
	// TestHeadOnlyOperationsDoNotWaitForTheBody, every case runs at once.
	t.Run("servers", func(t *testing.T) {
		var wg sync.WaitGroup
		for _, srv := range servers {
			target := "https://" + holdingServer(t, srv.greet) + "/"
			for _, path := range []string{"/tlsscan", "/httpheader", "/up"} {
				wg.Go(func() {
					t.Run(srv.name+" "+path, func(t *testing.T) {
						start := time.Now()
						resp := api.Post(t, path, map[string]any{"url": target})
						if elapsed, bound := time.Since(start), 20*time.Second; elapsed > bound {
							t.Errorf("took %v, want at most %v", elapsed, bound)
						}
						if path != "/tlsscan" {
							wantNoAnswer(t, path, resp)
							return
						}
						resp.WantError(t, http.StatusUnprocessableEntity, sitediag.CodeTLSHandshakeFailed)
						if d, _ := resp.Envelope["details"].(string); !strings.HasSuffix(d, "no answer in 5 s") {
							t.Errorf("details %q, want no answer in 5 s", d)
						}
					})
				})
			}
		}
		wg.Wait()
	})
	before.wait(t)
}

// TestHostileDNSServers: a DNS server whose answers fill a whole 64 KB
// message (cut short over UDP, whole over TCP), and one that never
// answers. The first gives every record, and an HTTP operation tries a
// name's 2 600 addresses in turn until one takes the connection; the
// second is DNS_LOOKUP_FAILED once its queries time out (3 s).
func TestHostileDNSServers(t *testing.T) {
	api := apitest.New(t, apitest.Options{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Probe", "yes")
	}))
	defer site.Close()
	_, port, _ := net.SplitHostPort(site.Listener.Addr().String())
	// Records sized to fill a 64 KB message uncompressed: 235 TXT
	// records of 255 bytes (276 bytes each), 2 600 A records (25 bytes
	// each), of which only the last, 127.0.0.1, listens.
	txt := make([]mdns.RR, 235)
	for i := range txt {
		txt[i] = &mdns.TXT{Hdr: mdns.RR_Header{Name: "big.test.", Rrtype: mdns.TypeTXT, Class: mdns.ClassINET, Ttl: 60},
			Txt: []string{fmt.Sprintf("%03d%s", i, strings.Repeat("t", 252))}}
	}
	addrs := make([]mdns.RR, 2600)
	for i := range addrs {
		ip := net.IPv4(127, 1, byte(i>>8), byte(i))
		if i == len(addrs)-1 {
			ip = net.IPv4(127, 0, 0, 1)
		}
		addrs[i] = &mdns.A{Hdr: mdns.RR_Header{Name: "many.test.", Rrtype: mdns.TypeA, Class: mdns.ClassINET, Ttl: 60}, A: ip}
	}
	api.DNS.AddRR(txt...)
	api.DNS.AddRR(addrs...)
	before := takeBaseline(t, api)
	rows := []struct {
		name, path string
		body       map[string]any
		want       func(*testing.T, *apitest.Response)
	}{
		{"64 KB of TXT", "/dnsrecord", map[string]any{"url": "big.test", "types": []string{"TXT"}}, func(t *testing.T, resp *apitest.Response) {
			_, data := resp.WantSuccess(t)
			if got, _ := data.(map[string]any)["TXT"].([]any); len(got) != len(txt) {
				t.Errorf("%d TXT records, want %d", len(got), len(txt))
			}
		}},
		{"64 KB of A, every type", "/dnsrecord", map[string]any{"url": "many.test"}, func(t *testing.T, resp *apitest.Response) {
			_, data := resp.WantSuccess(t)
			if got, _ := data.(map[string]any)["A"].([]any); len(got) != len(addrs) {
				t.Errorf("%d A records, want %d", len(got), len(addrs))
			}
		}},
		{"64 KB of A, an HTTP operation", "/httpheader", map[string]any{"url": "http://many.test:" + port + "/"}, func(t *testing.T, resp *apitest.Response) {
			if _, data := resp.WantSuccess(t); !strings.Contains(compact(t, data), `"x-probe"`) {
				t.Errorf("headers %s: want x-probe among them", compact(t, data))
			}
		}},
		{"no answer", "/dnsrecord", map[string]any{"url": "site.test"}, func(t *testing.T, resp *apitest.Response) {
			resp.WantError(t, http.StatusInternalServerError, sitediag.CodeDNSLookupFailed)
		}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			if row.name == "no answer" {
				api.DNS.Handle(func(mdns.ResponseWriter, *mdns.Msg) {})
			}
			start := time.Now()
			resp := api.Post(t, row.path, row.body)
			if elapsed, bound := time.Since(start), 10*time.Second; elapsed > bound {
				t.Errorf("took %v, want at most %v", elapsed, bound)
			}
			row.want(t, resp)
		})
	}
	before.wait(t)
}
