package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/sitediag/sitediag"
)

// keyring holds the SHA-256 digests of the accepted keys.
type keyring struct {
	digests [][sha256.Size]byte
}

func newKeyring(keys []string) *keyring {
	k := &keyring{}
	for _, key := range keys {
		if key != "" {
			k.digests = append(k.digests, sha256.Sum256([]byte(key)))
		}
	}
	return k
}

// match returns the rate-limit identity of the key (its digest in hex),
// comparing digests in constant time and always against every key, or
// false.
func (k *keyring) match(key string) (string, bool) {
	if key == "" {
		return "", false
	}
	got := sha256.Sum256([]byte(key))
	found := -1
	for i, d := range k.digests {
		if subtle.ConstantTimeCompare(got[:], d[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return "", false
	}
	return hex.EncodeToString(k.digests[found][:]), true
}

// wait reports how long the key must wait before its next request; zero
// means the request may go now (and has taken its allowance). When the
// configured limiter fails, the in-process one decides (fail open to
// per-replica limits) and the failure is logged.
func (h *Handler) wait(r *http.Request, id string) time.Duration {
	now := h.now()
	d, err := h.limiter.Reserve(r.Context(), id, now)
	if err != nil {
		h.log.Warn("rate limiter failed; using the in-process limit", "id", requestID(r.Context()), "err", err)
		d, _ = h.localLimiter.Reserve(r.Context(), id, now)
	}
	if d <= 0 {
		return 0
	}
	return max(d, time.Second)
}

// keyed wraps a route with the key check and the rate limit.
func (h *Handler) keyed(next httprouter.Handle) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		id, ok := h.keys.match(r.Header.Get("x-api-key"))
		if !ok {
			h.writeError(w, r, sitediag.NewError(CodeUnauthorized, nil, "a valid x-api-key header is required"))
			return
		}
		if d := h.wait(r, id); d > 0 {
			h.writeError(w, r, sitediag.RetryLater(CodeRateLimited, nil, d, "rate limit exceeded for this key"))
			return
		}
		next(w, r, ps)
	}
}
