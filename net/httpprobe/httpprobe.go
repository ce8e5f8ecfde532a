// Package httpprobe runs the HTTP-level diagnoses: whether a site is up,
// and the chain of redirects it serves.
//
// The package only speaks HTTP; the caller hands it an HTTP client whose
// connections are already guarded (see net/netx), and it walks
// redirects itself, hop by hop, so every hop is seen and bounded.
package httpprobe

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/sitediag/sitediag/net/netx"
)

// MaxRedirects is how many redirects a walk follows; one more is
// ErrTooManyRedirects.
const MaxRedirects = 10

// userAgent identifies the probes to the sites they visit.
const userAgent = "Mozilla/5.0 (compatible; sitediag/1.0; +https://github.com/sitediag/sitediag)"

// ErrTooManyRedirects means a walk met a loop or more than MaxRedirects
// redirects.
var ErrTooManyRedirects = errors.New("httpprobe: too many redirects")

// Header is one response header line, with its name in lower case.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Hop is one response of a redirect chain.
type Hop struct {
	URL     string   `json:"url"`
	Status  int      `json:"status"`
	Headers []Header `json:"headers"`

	reason string
}

// step sends one request to u and returns its hop and, for a redirect
// with a usable Location, where it points.
type step func(ctx context.Context, u *url.URL) (Hop, *url.URL, error)

// walk requests start and, when follow is set, every redirect after it,
// one step per hop. It returns the hops seen so far even when it fails,
// so the caller can tell which URL could not be reached.
func walk(ctx context.Context, start *url.URL, follow bool, do step) ([]Hop, error) {
	var hops []Hop
	seen := map[string]bool{}
	next := start
	for {
		key := next.String()
		if seen[key] || len(hops) > MaxRedirects {
			return hops, ErrTooManyRedirects
		}
		seen[key] = true
		hop, loc, err := do(ctx, next)
		if err != nil {
			return hops, &FetchError{URL: key, Err: err}
		}
		hops = append(hops, hop)
		if !follow || loc == nil {
			return hops, nil
		}
		next = loc
	}
}

// fetchStep is the step of the walks that need no body: one request with
// method, closed as soon as its head is in. The body is never read, so a
// server that stalls it cannot hold the walk; closing an unread body
// closes the connection.
func fetchStep(client netx.Doer, method string, headersOf func(*http.Response) []Header) step {
	return func(ctx context.Context, u *url.URL) (Hop, *url.URL, error) {
		resp, err := send(ctx, client, method, u, nil)
		if err != nil {
			return Hop{}, nil, err
		}
		resp.Body.Close()
		hop, loc := hopOf(u, resp, headersOf(resp))
		return hop, loc, nil
	}
}

// send sends one request with the probes' User-Agent and any extra
// headers.
func send(ctx context.Context, client netx.Doer, method string, u *url.URL, header http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err != nil {
		return nil, err
	}
	for name, values := range header {
		req.Header[name] = values
	}
	req.Header.Set("User-Agent", userAgent)
	return client.Do(req)
}

// hopOf describes resp, the answer to u, and says where it redirects to,
// if anywhere an HTTP probe can follow.
func hopOf(u *url.URL, resp *http.Response, headers []Header) (Hop, *url.URL) {
	hop := Hop{URL: u.String(), Status: resp.StatusCode, Headers: headers, reason: reasonPhrase(resp)}
	if !isRedirect(resp.StatusCode) {
		return hop, nil
	}
	loc, err := resp.Location()
	if err != nil {
		// A redirect without a usable Location ends the chain.
		return hop, nil
	}
	loc.Fragment = ""
	if loc.Scheme != "http" && loc.Scheme != "https" {
		return hop, nil
	}
	return hop, loc
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// reasonPhrase is the text after the code in the status line, or the
// standard text when the server sent none (as over HTTP/2).
func reasonPhrase(resp *http.Response) string {
	_, reason, _ := strings.Cut(resp.Status, " ")
	if reason == "" {
		reason = http.StatusText(resp.StatusCode)
	}
	return reason
}

// FetchError is a request that got no response: the name did not
// resolve, the connection was refused or timed out, or the guard refused
// the address.
type FetchError struct {
	URL string
	Err error
}

func (e *FetchError) Error() string { return "httpprobe: fetching " + e.URL + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *FetchError) Unwrap() error { return e.Err }
