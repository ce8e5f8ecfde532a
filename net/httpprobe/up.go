package httpprobe

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/sitediag/sitediag/internal/neterr"
	"github.com/sitediag/sitediag/net/netx"
)

// UpResult says whether a site answered, and how.
type UpResult struct {
	// Reachable is true when any HTTP response came back.
	Reachable bool
	// StatusCode and ReasonPhrase are of the last response; 0 and a few
	// words on why when nothing answered.
	StatusCode   int
	ReasonPhrase string
	// FinalURL is the last URL requested.
	FinalURL string
}

// Up sends a GET to target and, when follow is set, follows up to
// MaxRedirects redirects. A site that does not answer is a result
// (Reachable false), not an error; the error is ErrTooManyRedirects, a
// refusal of the guard, or ctx's.
func Up(ctx context.Context, client netx.Doer, target *url.URL, follow bool) (*UpResult, error) {
	hops, err := walk(ctx, target, follow, fetchStep(client, http.MethodGet, noHeaders))
	var fetchErr *FetchError
	switch {
	case errors.As(err, &fetchErr):
		if blocking(fetchErr.Err) {
			return nil, fetchErr.Err
		}
		return &UpResult{ReasonPhrase: neterr.Why(fetchErr.Err), FinalURL: fetchErr.URL}, nil
	case err != nil:
		return nil, err
	}
	last := hops[len(hops)-1]
	return &UpResult{Reachable: true, StatusCode: last.Status, ReasonPhrase: last.reason, FinalURL: last.URL}, nil
}

func noHeaders(*http.Response) []Header { return nil }

// blocking reports whether err must stop an operation rather than be
// reported as unreachable: a cancelled job, or an error the caller maps:
// a guard refusal (on the first hop or a later one), or a country proxy
// that could not be used.
func blocking(err error) bool {
	var proxyErr *netx.ProxyError
	return errors.Is(err, context.Canceled) || errors.Is(err, netx.ErrNotAllowed) || errors.As(err, &proxyErr)
}
