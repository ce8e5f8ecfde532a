package middleware

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// RateLimiter decides whether the key with the given identity may make a
// request now. The identity is the hex SHA-256 digest of the API key, so
// the key itself never leaves the middleware. Implementations must be safe
// for concurrent use; a shared one (such as redislimit.Limiter) makes one
// allowance per key across every replica.
type RateLimiter interface {
	// Reserve takes one request from the key's allowance. It returns
	// zero when the request may go, or how long the key must wait
	// before its next one. now is the handler's clock; a limiter with a
	// clock of its own may ignore it.
	Reserve(ctx context.Context, id string, now time.Time) (time.Duration, error)
}

// DefaultRateLimit is the per-caller rate, in requests per second, when
// RateLimitOptions.PerSecond is zero.
const DefaultRateLimit = 10

// localLimiter is the in-process RateLimiter: a token bucket per key.
type localLimiter struct {
	limit    rate.Limit
	burst    int
	mu       sync.Mutex
	limiters map[string]*rate.Limiter
}

// newLocalLimiter limits each key to perSecond requests a second with a
// burst of twice that; zero means DefaultRateLimit and a negative rate
// means no limit.
func newLocalLimiter(perSecond float64) *localLimiter {
	l := &localLimiter{limiters: map[string]*rate.Limiter{}}
	switch {
	case perSecond == 0:
		perSecond = DefaultRateLimit
		fallthrough
	case perSecond > 0:
		l.limit = rate.Limit(perSecond)
		l.burst = RateBurst(perSecond)
	default:
		l.limit = rate.Inf
	}
	return l
}

// RateBurst is the burst the handler allows at perSecond requests a
// second: twice the rate, at least one. A shared limiter should use the
// same.
func RateBurst(perSecond float64) int { return max(1, int(2*perSecond)) }

// Reserve implements RateLimiter.
func (l *localLimiter) Reserve(_ context.Context, id string, now time.Time) (time.Duration, error) {
	if l.limit == rate.Inf {
		return 0, nil
	}
	l.mu.Lock()
	lim, ok := l.limiters[id]
	if !ok {
		lim = rate.NewLimiter(l.limit, l.burst)
		l.limiters[id] = lim
	}
	l.mu.Unlock()
	if lim.AllowN(now, 1) {
		return 0, nil
	}
	r := lim.ReserveN(now, 1)
	delay := r.DelayFrom(now)
	r.CancelAt(now)
	return delay, nil
}
