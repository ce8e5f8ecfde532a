// Package middleware is what an HTTP API puts around its operations, as
// func(http.Handler) http.Handler in the standard library's style
// (http.StripPrefix, http.MaxBytesHandler): API keys, a rate limit per
// caller, CORS, and Chain to compose them. Nothing in it knows the
// operations; a refusal is handed to the Refuse function the caller
// gives, to answer in its own envelope (httpapi's, or the embedder's).
package middleware

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"time"
)

// Refuse answers a request the middleware turns away; err is
// ErrUnauthorized or a *RateLimitedError.
type Refuse func(w http.ResponseWriter, r *http.Request, err error)

// ErrUnauthorized is APIKeys' refusal: no valid x-api-key header.
var ErrUnauthorized = errors.New("a valid x-api-key header is required")

// RateLimitedError is RateLimit's refusal: the caller must wait
// RetryAfter (at least a second) before its next request.
type RateLimitedError struct{ RetryAfter time.Duration }

func (e *RateLimitedError) Error() string {
	return "rate limit exceeded; retry after " + e.RetryAfter.String()
}

// Chain returns h wrapped in middleware, the first outermost:
// Chain(h, a, b) is a(b(h)).
func Chain(h http.Handler, middleware ...func(http.Handler) http.Handler) http.Handler {
	for _, m := range slices.Backward(middleware) {
		h = m(h)
	}
	return h
}

// APIKeys refuses, with ErrUnauthorized, every request whose x-api-key
// header is not one of keys; with no key, every request. The keys are
// hashed when the middleware is built and never logged. A request let
// through carries its key's identity (the hex SHA-256 digest of the
// key) for RateLimit.
func APIKeys(keys []string, refuse Refuse) func(http.Handler) http.Handler {
	var digests [][sha256.Size]byte
	var ids []any // each digest's identity, in a context value's form
	for _, key := range keys {
		if key != "" {
			d := sha256.Sum256([]byte(key))
			digests = append(digests, d)
			ids = append(ids, hex.EncodeToString(d[:]))
		}
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			i, ok := matchKey(digests, r.Header.Get("x-api-key"))
			if !ok {
				refuse(w, r, ErrUnauthorized)
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), keyIDKey{}, ids[i])))
		})
	}
}

type keyIDKey struct{}

// matchKey returns the index in digests of key's digest, comparing
// digests in constant time and always against every one, or false.
func matchKey(digests [][sha256.Size]byte, key string) (int, bool) {
	if key == "" {
		return 0, false
	}
	got := sha256.Sum256([]byte(key))
	found := -1
	for i, d := range digests {
		if subtle.ConstantTimeCompare(got[:], d[:]) == 1 {
			found = i
		}
	}
	return found, found >= 0
}

// RateLimitOptions configure RateLimit; the zero value allows each
// caller DefaultRateLimit requests a second.
type RateLimitOptions struct {
	// PerSecond is the number of requests per second each caller may
	// make, with a burst of RateBurst(PerSecond). If zero,
	// DefaultRateLimit; negative means no limit.
	PerSecond float64
	// Limiter, if set, enforces the limit instead of the in-process
	// limiter, such as one shared by every replica (redislimit.Limiter,
	// built with the same rate and RateBurst). When it fails, the
	// in-process limiter decides that request (fail open to per-replica
	// limits), and the failure is logged.
	Limiter RateLimiter
	// Logger receives the Limiter's failures. If nil, slog.Default().
	Logger *slog.Logger
	// Now returns the current time. If nil, time.Now.
	Now func() time.Time
	// Refuse answers a request over the limit with its
	// *RateLimitedError. Required.
	Refuse Refuse
}

// RateLimit refuses, with a *RateLimitedError, the requests of a caller
// past its allowance. The caller is the API key
// APIKeys checked, or else the client's IP address.
func RateLimit(opts RateLimitOptions) func(http.Handler) http.Handler {
	local := newLocalLimiter(opts.PerSecond)
	limiter := opts.Limiter
	if limiter == nil {
		limiter = local
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := callerOf(r)
			at := now()
			d, err := limiter.Reserve(r.Context(), id, at)
			if err != nil {
				log.Warn("rate limiter failed; using the in-process limit", "path", r.URL.Path, "err", err)
				d, _ = local.Reserve(r.Context(), id, at)
			}
			if d > 0 {
				opts.Refuse(w, r, &RateLimitedError{RetryAfter: max(d, time.Second)})
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// callerOf is the identity RateLimit counts r against: its key's, or
// its client's address.
func callerOf(r *http.Request) string {
	if id, ok := r.Context().Value(keyIDKey{}).(string); ok {
		return id
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return "ip:" + host
}
