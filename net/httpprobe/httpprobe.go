// Package httpprobe runs the HTTP-level diagnoses: whether a site is up,
// and the chain of redirects it serves.
//
// The package only speaks HTTP; the caller hands it an HTTP client whose
// connections are already guarded (see internal/guard), and it walks
// redirects itself, hop by hop, so every hop is seen and bounded.
package httpprobe

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
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

// Doer sends one HTTP request without following redirects.
type Doer interface {
	Do(req *http.Request) (*http.Response, error)
}

// walk requests start and, when follow is set, every redirect after it.
// It returns the hops seen so far even when it fails, so the caller can
// tell which URL could not be reached. headersOf turns a response into
// its header list.
func walk(ctx context.Context, client Doer, start *url.URL, follow bool, headersOf func(*http.Response) []Header) ([]Hop, error) {
	var hops []Hop
	seen := map[string]bool{}
	next := start
	for {
		key := next.String()
		if seen[key] || len(hops) > MaxRedirects {
			return hops, ErrTooManyRedirects
		}
		seen[key] = true
		hop, loc, err := fetch(ctx, client, next, headersOf)
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

// fetch sends one GET and returns its hop and, for a redirect with a
// Location, where it points.
func fetch(ctx context.Context, client Doer, u *url.URL, headersOf func(*http.Response) []Header) (Hop, *url.URL, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Hop{}, nil, err
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := client.Do(req)
	if err != nil {
		return Hop{}, nil, err
	}
	// Drain a little so the server sees a clean close; bodies are not
	// part of these diagnoses.
	_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	resp.Body.Close()
	hop := Hop{URL: u.String(), Status: resp.StatusCode, Headers: headersOf(resp), reason: reasonPhrase(resp)}
	if !isRedirect(resp.StatusCode) {
		return hop, nil, nil
	}
	loc, err := resp.Location()
	if err != nil {
		// A redirect without a usable Location ends the chain.
		return hop, nil, nil
	}
	loc.Fragment = ""
	if loc.Scheme != "http" && loc.Scheme != "https" {
		return hop, nil, nil
	}
	return hop, loc, nil
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
