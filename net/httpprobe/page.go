package httpprobe

import (
	"context"
	"io"
	"net/http"
	"net/url"

	"github.com/sitediag/sitediag/net/netx"
)

// Page is a fetched document.
type Page struct {
	// URL is the URL the document was served at, after any redirects.
	URL *url.URL
	// Hops are the responses in order, the document's last.
	Hops []Hop
	// Header is the document response's header.
	Header http.Header
	// Body is the document, at most the maxBytes asked for.
	Body []byte
	// Truncated says the document was longer than Body.
	Truncated bool
}

// FetchPage GETs target and, when follow is set, its redirects, and reads
// up to maxBytes of the final response's body, whatever its status. A
// loop or more than MaxRedirects redirects is ErrTooManyRedirects; a
// request that got no response is a *FetchError.
func FetchPage(ctx context.Context, client netx.Doer, target *url.URL, follow bool, maxBytes int64) (*Page, error) {
	page := &Page{}
	fetch := func(ctx context.Context, u *url.URL) (Hop, *url.URL, error) {
		resp, err := send(ctx, client, http.MethodGet, u, nil)
		if err != nil {
			return Hop{}, nil, err
		}
		defer resp.Body.Close()
		hop, loc := hopOf(u, resp, nil)
		if follow && loc != nil {
			return hop, loc, nil // a redirect's body is not read
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
		if err != nil {
			return Hop{}, nil, err
		}
		if int64(len(body)) > maxBytes {
			body, page.Truncated = body[:maxBytes], true
		}
		page.URL, page.Header, page.Body = u, resp.Header, body
		return hop, loc, nil
	}
	hops, err := walk(ctx, target, follow, fetch)
	if err != nil {
		return nil, err
	}
	page.Hops = hops
	return page, nil
}

// Status sends method (HEAD or GET) to target and, when follow is set,
// follows its redirects; it returns the last response. Errors are
// FetchPage's.
func Status(ctx context.Context, client netx.Doer, method string, target *url.URL, follow bool) (Hop, error) {
	hops, err := walk(ctx, target, follow, fetchStep(client, method, noHeaders))
	if err != nil {
		return Hop{}, err
	}
	return hops[len(hops)-1], nil
}
