package browser

import (
	"errors"
	"strings"

	"github.com/sitediag/sitediag/internal/neterr"
	"github.com/sitediag/sitediag/net/netx"
)

// NavigationError means the page's main document could not be loaded:
// the target or a redirect it led to did not resolve, refused, timed out,
// redirected endlessly, or was refused by the SSRF policy.
type NavigationError struct {
	// URL is the document that failed, the last hop of any redirects.
	URL string
	// Reason is Chromium's network error (net::ERR_NAME_NOT_RESOLVED,
	// …); empty when the document arrived but was the proxy's refusal.
	Reason string
	// Err is what the job's proxy saw for that document's host
	// (netx.Proxy.Failure): netx.ErrNotAllowed, netx.ErrBlocked, a resolution or a dial
	// error; or the context's error for a navigation that timed
	// out. Nil when the proxy served it.
	Err error
}

func (e *NavigationError) Error() string {
	return "browser: loading " + e.URL + ": " + e.Why()
}

// Unwrap returns Err.
func (e *NavigationError) Unwrap() error { return e.Err }

// Why says in a few words why the document did not load.
func (e *NavigationError) Why() string {
	switch {
	case errors.Is(e.Err, netx.ErrNotAllowed):
		return "not allowed"
	case errors.Is(e.Err, netx.ErrBlocked):
		return "blocked as an ad or tracker host"
	case e.Err != nil:
		return neterr.Why(e.Err)
	}
	switch reason := strings.TrimPrefix(e.Reason, "net::"); reason {
	case "ERR_NAME_NOT_RESOLVED", "ERR_NAME_RESOLUTION_FAILED":
		return "name not resolved"
	case "ERR_CONNECTION_REFUSED":
		return "connection refused"
	case "ERR_CONNECTION_RESET", "ERR_CONNECTION_CLOSED":
		return "connection reset"
	case "ERR_TIMED_OUT", "ERR_CONNECTION_TIMED_OUT":
		return "timed out"
	case "ERR_TOO_MANY_REDIRECTS":
		return "too many redirects, or a redirect loop"
	case "ERR_EMPTY_RESPONSE":
		return "empty response"
	case "ERR_ADDRESS_UNREACHABLE":
		return "host unreachable"
	case "ERR_ABORTED":
		return "navigation aborted (a download, or the load was cancelled)"
	case "ERR_TUNNEL_CONNECTION_FAILED", "ERR_PROXY_CONNECTION_FAILED":
		return "connection failed"
	default:
		if strings.HasPrefix(reason, "ERR_SSL_") || strings.HasPrefix(reason, "ERR_CERT_") {
			return "TLS handshake failed"
		}
		if reason == "" {
			return "connection failed"
		}
		return strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(reason, "ERR_"), "_", " "))
	}
}
