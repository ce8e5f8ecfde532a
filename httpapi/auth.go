package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"sync"
	"time"

	"github.com/julienschmidt/httprouter"
	"golang.org/x/time/rate"

	"github.com/sitediag/sitediag"
)

// keyring holds the SHA-256 digests of the accepted keys and a token
// bucket per key.
type keyring struct {
	digests  [][sha256.Size]byte
	limit    rate.Limit
	burst    int
	mu       sync.Mutex
	limiters map[int]*rate.Limiter
}

func newKeyring(keys []string, perSecond float64) *keyring {
	k := &keyring{limiters: map[int]*rate.Limiter{}}
	for _, key := range keys {
		if key != "" {
			k.digests = append(k.digests, sha256.Sum256([]byte(key)))
		}
	}
	switch {
	case perSecond == 0:
		perSecond = DefaultRateLimit
		fallthrough
	case perSecond > 0:
		k.limit = rate.Limit(perSecond)
		k.burst = max(1, int(2*perSecond))
	default:
		k.limit = rate.Inf
	}
	return k
}

// match returns the index of the key, comparing digests in constant time
// and always against every key, or -1.
func (k *keyring) match(key string) int {
	if key == "" {
		return -1
	}
	got := sha256.Sum256([]byte(key))
	found := -1
	for i, d := range k.digests {
		if subtle.ConstantTimeCompare(got[:], d[:]) == 1 {
			found = i
		}
	}
	return found
}

// wait reports how long the key must wait before its next request; zero
// means the request may go now (and has taken its token).
func (k *keyring) wait(i int, now time.Time) time.Duration {
	if k.limit == rate.Inf {
		return 0
	}
	k.mu.Lock()
	lim, ok := k.limiters[i]
	if !ok {
		lim = rate.NewLimiter(k.limit, k.burst)
		k.limiters[i] = lim
	}
	k.mu.Unlock()
	if lim.AllowN(now, 1) {
		return 0
	}
	r := lim.ReserveN(now, 1)
	delay := r.DelayFrom(now)
	r.CancelAt(now)
	return max(delay, time.Second)
}

// keyed wraps a route with the key check and the rate limit.
func (h *Handler) keyed(next httprouter.Handle) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		i := h.keys.match(r.Header.Get("x-api-key"))
		if i < 0 {
			h.writeError(w, r, sitediag.NewError(sitediag.CodeUnauthorized, nil, "a valid x-api-key header is required"))
			return
		}
		if d := h.keys.wait(i, h.now()); d > 0 {
			h.writeError(w, r, sitediag.RetryLater(sitediag.CodeRateLimited, nil, d, "rate limit exceeded for this key"))
			return
		}
		next(w, r, ps)
	}
}
