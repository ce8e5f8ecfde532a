package middleware_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag/httpapi/middleware"
)

// refusals records what the middleware refused, answering 403.
type refusals []error

func (rs *refusals) refuse(w http.ResponseWriter, _ *http.Request, err error) {
	*rs = append(*rs, err)
	w.WriteHeader(http.StatusForbidden)
}

var ok = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) })

func serve(h http.Handler, r *http.Request) int {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec.Code
}

func TestChainOrder(t *testing.T) {
	var order []string
	mark := func(name string) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				order = append(order, name)
				next.ServeHTTP(w, r)
			})
		}
	}
	serve(middleware.Chain(ok, mark("a"), mark("b"), mark("c")), httptest.NewRequest("GET", "/", nil))
	if strings.Join(order, "") != "abc" {
		t.Errorf("order %v, want a, b, c (the first outermost)", order)
	}
}

func TestAPIKeysAndRateLimit(t *testing.T) {
	var rs refusals
	now := time.Unix(1e9, 0)
	h := middleware.Chain(ok, middleware.APIKeys([]string{"k1", "k2"}, rs.refuse),
		middleware.RateLimit(middleware.RateLimitOptions{PerSecond: 1, Now: func() time.Time { return now }, Refuse: rs.refuse}))
	req := func(key string) *http.Request {
		r := httptest.NewRequest("GET", "/", nil)
		if key != "" {
			r.Header.Set("x-api-key", key)
		}
		return r
	}
	for _, key := range []string{"", "k3", "k1, k2"} {
		if code := serve(h, req(key)); code != 403 || !errors.Is(rs[len(rs)-1], middleware.ErrUnauthorized) {
			t.Errorf("key %q: %d %v, want ErrUnauthorized", key, code, rs)
		}
	}
	// 1/s with a burst of 2, per key: k1's third request waits, k2 has its own.
	codes := []int{serve(h, req("k1")), serve(h, req("k1")), serve(h, req("k1")), serve(h, req("k2"))}
	var limited *middleware.RateLimitedError
	if codes[0] != 200 || codes[1] != 200 || codes[2] != 403 || codes[3] != 200 ||
		!errors.As(rs[len(rs)-1], &limited) || limited.RetryAfter < time.Second {
		t.Errorf("codes %v, refusals %v; want 200 200 403 (retry after ≥ 1 s) 200", codes, rs)
	}
}

// TestRateLimitByAddress: without APIKeys in front, callers are told
// apart by their address.
func TestRateLimitByAddress(t *testing.T) {
	var rs refusals
	now := time.Unix(1e9, 0)
	h := middleware.RateLimit(middleware.RateLimitOptions{PerSecond: 0.5, Now: func() time.Time { return now }, Refuse: rs.refuse})(ok)
	from := func(addr string) int {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = addr
		return serve(h, r)
	}
	if a1, a2, b := from("192.0.2.1:1000"), from("192.0.2.1:2000"), from("192.0.2.2:1000"); a1 != 200 || a2 != 403 || b != 200 {
		t.Errorf("got %d %d %d, want the second request of 192.0.2.1 refused (burst 1) and 192.0.2.2 served", a1, a2, b)
	}
}

func TestCORS(t *testing.T) {
	h := middleware.CORS([]string{"https://app.example/"})(ok)
	pre := httptest.NewRequest("OPTIONS", "/up", nil)
	pre.Header.Set("Origin", "https://app.example")
	pre.Header.Set("Access-Control-Request-Method", "POST")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, pre)
	if rec.Code != 204 || rec.Header().Get("Access-Control-Allow-Origin") != "https://app.example" || rec.Body.Len() != 0 {
		t.Errorf("preflight: %d %v", rec.Code, rec.Header())
	}
	other := httptest.NewRequest("POST", "/up", nil)
	other.Header.Set("Origin", "https://evil.example")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, other)
	if rec.Code != 200 || rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("another origin: %d %v, want served without CORS headers", rec.Code, rec.Header())
	}
}
