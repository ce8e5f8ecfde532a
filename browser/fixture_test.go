package browser

import (
	"bytes"
	"context"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "golang.org/x/image/webp"

	"github.com/sitediag/sitediag/internal/guardnet"
	"github.com/sitediag/sitediag/internal/guardtest"
	"github.com/sitediag/sitediag/internal/procs"
	"github.com/sitediag/sitediag/internal/testenv"
)

// needChromium skips (or, in CI, fails) a test when no Chromium is
// installed.
func needChromium(t *testing.T) {
	t.Helper()
	_, err := Find(os.Getenv("SITEDIAG_CHROME_PATH"))
	testenv.Need(t, err == nil, "needs Chromium (apt-get install chromium)")
}

// env is a test's browser pool and the fixtures behind it: site.test and
// ads.example resolve to the fixture server on 127.0.0.1, the only
// address the policy allows; evil.test resolves to 127.0.0.2.
type env struct {
	pool *Pool
	site *site
}

func newEnv(t *testing.T, cfg Config) *env {
	t.Helper()
	needChromium(t)
	cfg.Network = guardnet.Network(guardtest.New(t, "ads.doubleclick.net. 60 IN A 127.0.0.1", "evil.test. 60 IN A 127.0.0.2"))
	cfg.Path = os.Getenv("SITEDIAG_CHROME_PATH")
	pool, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return &env{pool: pool, site: startSite(t)}
}

// do runs fn as one job and fails the test on error.
func (e *env) do(t *testing.T, opts JobOptions, fn func(ctx context.Context, j *Job) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	if err := e.pool.Do(ctx, opts, fn); err != nil {
		t.Fatalf("job: %v", err)
	}
}

// site serves fixture pages by path and records what it was asked.
type site struct {
	srv  *httptest.Server
	port string

	mu    sync.Mutex
	pages map[string]http.HandlerFunc
	seen  []request
}

type request struct {
	host, path, userAgent string
}

func startSite(t *testing.T) *site {
	t.Helper()
	s := &site{pages: map[string]http.HandlerFunc{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	_, s.port, _ = net.SplitHostPort(s.srv.Listener.Addr().String())
	return s
}

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.seen = append(s.seen, request{host: r.Host, path: r.URL.Path, userAgent: r.UserAgent()})
	h, ok := s.pages[r.URL.Path]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	h(w, r)
}

// page adds an HTML page and returns its URL on site.test.
func (s *site) page(path, html string) string {
	return s.handle(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(html))
	})
}

// redirect adds a redirect to location and returns its URL.
func (s *site) redirect(path, location string) string {
	return s.handle(path, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, location, http.StatusFound)
	})
}

// handle adds a handler and returns its URL on site.test.
func (s *site) handle(path string, h http.HandlerFunc) string {
	s.mu.Lock()
	s.pages[path] = h
	s.mu.Unlock()
	return s.url(path)
}

func (s *site) url(path string) string { return "http://site.test:" + s.port + path }

// requests returns what the site was asked for on path.
func (s *site) requests(path string) []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []request
	for _, r := range s.seen {
		if r.path == path {
			out = append(out, r)
		}
	}
	return out
}

// hosts returns the Host headers the site saw.
func (s *site) hosts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.seen {
		out = append(out, r.host)
	}
	return out
}

// decode decodes an image and fails the test unless it is in format.
func decode(t *testing.T, data []byte, format string) image.Image {
	t.Helper()
	img, got, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decoding the capture: %v", err)
	}
	if got != format {
		t.Fatalf("capture is %s, want %s", got, format)
	}
	return img
}

func wantSize(t *testing.T, img image.Image, w, h int) {
	t.Helper()
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("capture is %d×%d, want %d×%d", b.Dx(), b.Dy(), w, h)
	}
}

// forbidden listens on 127.0.0.2, outside the allow list, for TCP and
// UDP on one port number and counts what reaches it.
type forbidden struct {
	port  int
	tcp   net.Listener
	udp   net.PacketConn
	conns atomic.Int32
	pkts  atomic.Int32
}

func listenForbidden(t *testing.T) *forbidden {
	t.Helper()
	f := &forbidden{}
	for range 20 {
		ln, err := net.Listen("tcp", "127.0.0.2:0")
		if err != nil {
			t.Fatalf("listen on 127.0.0.2: %v", err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		pc, err := net.ListenPacket("udp", "127.0.0.2:"+strconv.Itoa(port))
		if err != nil {
			ln.Close()
			continue
		}
		f.port, f.tcp, f.udp = port, ln, pc
		break
	}
	if f.tcp == nil {
		t.Fatal("no port free for both TCP and UDP on 127.0.0.2")
	}
	t.Cleanup(func() { f.tcp.Close(); f.udp.Close() })
	go func() {
		for {
			c, err := f.tcp.Accept()
			if err != nil {
				return
			}
			f.conns.Add(1)
			c.Close()
		}
	}()
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, _, err := f.udp.ReadFrom(buf); err != nil {
				return
			}
			f.pkts.Add(1)
		}
	}()
	return f
}

// processesOf lists a browser's live processes: its process group and
// the strays carrying its marker.
func processesOf(p *Process) []int {
	out := marked(p.marker)
	for _, q := range procs.List() {
		if q.PGID == p.pid && q.State != "Z" {
			out = append(out, q.PID)
		}
	}
	return out
}
