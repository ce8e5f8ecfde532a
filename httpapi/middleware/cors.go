package middleware

import (
	"net/http"
	"slices"
	"strings"
)

// CORS answers browsers of the origins named (https://app.example, or
// "*" for any) across origins: it sets the CORS headers of their
// requests and answers their preflights itself, before any other check.
// With no origin it does nothing: the API key is a secret that a page of
// another origin should not be trusted with by default.
func CORS(origins []string) func(http.Handler) http.Handler {
	c := cors{origins: normaliseOrigins(origins)}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !c.handle(w, r) {
				next.ServeHTTP(w, r)
			}
		})
	}
}

// cors holds the origins allowed to call the API.
type cors struct {
	origins []string // exact origins, or "*" for any
}

// Headers a browser may send and read across origins.
const (
	corsAllowHeaders  = "Content-Type, X-Api-Key"
	corsExposeHeaders = "X-Request-Id, Retry-After"
	corsAllowMethods  = "GET, HEAD, POST"
)

// allows reports whether origin may call the API.
func (c cors) allows(origin string) bool {
	return origin != "" && (slices.Contains(c.origins, "*") || slices.Contains(c.origins, origin))
}

// handle sets the CORS headers for r's origin, when allowed, and answers
// a preflight itself; it reports whether the request is done.
func (c cors) handle(w http.ResponseWriter, r *http.Request) (done bool) {
	if len(c.origins) == 0 {
		return false
	}
	w.Header().Add("Vary", "Origin")
	origin := r.Header.Get("Origin")
	if !c.allows(origin) {
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		return false
	}
	h.Add("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers")
	h.Set("Access-Control-Allow-Methods", corsAllowMethods)
	h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// normaliseOrigins trims the configured origins and drops a trailing
// slash, so "https://app.example/" matches the browser's
// "https://app.example".
func normaliseOrigins(origins []string) []string {
	var out []string
	for _, o := range origins {
		if o = strings.TrimSuffix(strings.TrimSpace(o), "/"); o != "" {
			out = append(out, o)
		}
	}
	return out
}
