// Package linkcheck finds the broken links of a page: it fetches the
// page, extracts its links (internal/htmlx) and checks each one
// concurrently, bounded overall and per host, HEAD first and GET when
// HEAD is refused or fails.
//
// A broken link is a finding, not an error: each link's status (or why it
// got none) is a Result. The caller hands in an HTTP client whose
// connections are already guarded (see net/guard); a link the guard
// refuses is reported with status 0 and the error TARGET_NOT_ALLOWED.
package linkcheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sitediag/sitediag/internal/htmlx"
	"github.com/sitediag/sitediag/internal/neterr"
	"github.com/sitediag/sitediag/internal/target"
	"github.com/sitediag/sitediag/net/httpprobe"
	"github.com/sitediag/sitediag/net/netx"
)

// Defaults of Options.
const (
	DefaultConcurrency  = 32
	DefaultPerHost      = 8
	DefaultLinkTimeout  = 10 * time.Second
	DefaultMaxLinks     = 1000
	DefaultMaxPageBytes = 5 << 20
)

// ErrorNotAllowed is the Error of a link the SSRF policy refuses.
const ErrorNotAllowed = "TARGET_NOT_ALLOWED"

// ErrUnfinished means the job's context ended before every link was
// checked; it wraps ctx's error.
var ErrUnfinished = errors.New("linkcheck: not every link was checked in time")

// Options shape a check. The zero value is the default.
type Options struct {
	// Follow follows the page's redirects and each link's (up to
	// httpprobe.MaxRedirects); a link's status is then its final one.
	// If false, redirects are reported as they are (3xx).
	Follow bool
	// Concurrency bounds the links checked at once. If zero,
	// DefaultConcurrency.
	Concurrency int
	// PerHost bounds the links checked at once on one host. If zero,
	// DefaultPerHost.
	PerHost int
	// LinkTimeout bounds each link, HEAD and GET together. If zero,
	// DefaultLinkTimeout.
	LinkTimeout time.Duration
	// MaxLinks caps the links checked; those after it, in document
	// order, are not. If zero, DefaultMaxLinks.
	MaxLinks int
	// MaxPageBytes caps how much of the page is read; links after it
	// are not found. If zero, DefaultMaxPageBytes.
	MaxPageBytes int64
}

// Result is one link and what checking it gave.
type Result struct {
	// Link is the absolute URL, fragment dropped.
	Link string `json:"link"`
	// Status is the (final, when following) HTTP status; 0 when no
	// response came back.
	Status int `json:"status"`
	// Error says why there was no response: a few words ("connection
	// refused", "timed out", …) or ErrorNotAllowed. Empty otherwise.
	Error string `json:"error,omitempty"`
	// Kind is the element the link was found on ("a", "img", …).
	Kind string `json:"-"`
	// TimedOut is set when the link did not answer in time.
	TimedOut bool `json:"-"`
}

// Summary counts the results. Every result is in exactly one of
// Successful (2xx), Redirects (3xx), Broken (4xx, other statuses, and no
// response at all: network errors, timeouts, refusals) and ServerError
// (5xx); Total is their sum. Forbidden (403) and TimedOut are parts of
// Broken.
type Summary struct {
	Total       int `json:"total"`
	Successful  int `json:"successful"`
	Redirects   int `json:"redirects"`
	Broken      int `json:"broken"`
	ServerError int `json:"serverError"`
	Forbidden   int `json:"forbidden"`
	TimedOut    int `json:"timedOut"`
}

// Report is the check of one page.
type Report struct {
	// URL is where the page was served, after any redirects.
	URL string
	// Results are the links in document order.
	Results []Result
	Summary Summary
	// Found is the number of distinct links found, before MaxLinks.
	Found int
	// PageTruncated says the page was longer than MaxPageBytes.
	PageTruncated bool
}

// CheckPage fetches page with client and checks its links. The page's
// status does not matter (an error page's links are checked too); a page
// that is not HTML has no links. The error is the page's
// (httpprobe.ErrTooManyRedirects, or a *httpprobe.FetchError, which
// wraps netx.ErrNotAllowed for a refused page), or ErrUnfinished.
func CheckPage(ctx context.Context, client netx.Doer, page *url.URL, opts Options) (*Report, error) {
	maxBytes := opts.MaxPageBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxPageBytes
	}
	doc, err := httpprobe.FetchPage(ctx, client, page, opts.Follow, maxBytes)
	if err != nil {
		return nil, err
	}
	report := &Report{URL: doc.URL.String(), PageTruncated: doc.Truncated}
	var links []Link
	if isHTML(doc.Header.Get("Content-Type")) {
		parsed, err := htmlx.Parse(bytes.NewReader(doc.Body))
		if err != nil {
			return nil, err
		}
		for _, l := range htmlx.Links(parsed, doc.URL) {
			links = append(links, Link{URL: l.URL, Kind: l.Kind})
		}
	}
	report.Found = len(links)
	maxLinks := opts.MaxLinks
	if maxLinks <= 0 {
		maxLinks = DefaultMaxLinks
	}
	if len(links) > maxLinks {
		links = links[:maxLinks]
	}
	report.Results, err = Check(ctx, client, links, opts)
	if err != nil {
		return nil, err
	}
	report.Summary = Summarize(report.Results)
	return report, nil
}

// isHTML reports whether a Content-Type is HTML; a missing one is taken
// as HTML, as browsers sniff it.
func isHTML(contentType string) bool {
	if contentType == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "text/html" || mt == "application/xhtml+xml")
}

// Link is a link to check.
type Link struct {
	// URL is absolute, http or https.
	URL *url.URL
	// Kind is the name of the element it was found on ("a", "img", …).
	Kind string
}

// Check checks links with client, concurrently within opts' bounds, and
// returns one Result per link in the same order. Per-link failures are
// results; the error is ErrUnfinished when ctx ended before every link
// was checked.
func Check(ctx context.Context, client netx.Doer, links []Link, opts Options) ([]Result, error) {
	concurrency, perHost, timeout := opts.Concurrency, opts.PerHost, opts.LinkTimeout
	if concurrency <= 0 {
		concurrency = DefaultConcurrency
	}
	if perHost <= 0 {
		perHost = DefaultPerHost
	}
	if timeout <= 0 {
		timeout = DefaultLinkTimeout
	}
	hosts := &hostLimiter{limit: perHost, slots: map[string]chan struct{}{}}
	results := make([]Result, len(links))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(concurrency)
	for i, link := range links {
		g.Go(func() error {
			release, err := hosts.acquire(gctx, link.URL.Host)
			if err != nil {
				return err
			}
			defer release()
			lctx, cancel := context.WithTimeout(gctx, timeout)
			defer cancel()
			results[i] = checkLink(lctx, client, link, opts.Follow)
			return gctx.Err()
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnfinished, err)
	}
	return results, nil
}

// checkLink sends HEAD, then GET when HEAD is refused (405, 501) or gets
// no response.
func checkLink(ctx context.Context, client netx.Doer, link Link, follow bool) Result {
	res := Result{Link: link.URL.String(), Kind: link.Kind}
	t, err := target.ParseURL(res.Link)
	if err != nil {
		// Userinfo, numeric-looking hosts and the like are refused.
		res.Error = ErrorNotAllowed
		return res
	}
	hop, err := httpprobe.Status(ctx, client, http.MethodHead, t.URL, follow)
	if (err != nil && !errors.Is(err, netx.ErrNotAllowed) && ctx.Err() == nil) ||
		hop.Status == http.StatusMethodNotAllowed || hop.Status == http.StatusNotImplemented {
		hop, err = httpprobe.Status(ctx, client, http.MethodGet, t.URL, follow)
	}
	if err == nil {
		res.Status = hop.Status
		return res
	}
	var netErr net.Error
	switch {
	case errors.Is(err, netx.ErrNotAllowed):
		res.Error = ErrorNotAllowed
	case errors.Is(err, httpprobe.ErrTooManyRedirects):
		res.Error = "too many redirects"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		res.Error, res.TimedOut = "timed out", true
	default:
		res.Error = neterr.Why(err)
	}
	return res
}

// Summarize counts results (see Summary).
func Summarize(results []Result) Summary {
	var s Summary
	for _, r := range results {
		s.Total++
		switch {
		case r.Status >= 200 && r.Status <= 299:
			s.Successful++
		case r.Status >= 300 && r.Status <= 399:
			s.Redirects++
		case r.Status >= 500 && r.Status <= 599:
			s.ServerError++
		default:
			s.Broken++
			if r.Status == http.StatusForbidden {
				s.Forbidden++
			}
			if r.TimedOut {
				s.TimedOut++
			}
		}
	}
	return s
}

// hostLimiter bounds the concurrent checks per host.
type hostLimiter struct {
	limit int
	mu    sync.Mutex
	slots map[string]chan struct{}
}

func (h *hostLimiter) acquire(ctx context.Context, host string) (func(), error) {
	h.mu.Lock()
	slot, ok := h.slots[host]
	if !ok {
		slot = make(chan struct{}, h.limit)
		h.slots[host] = slot
	}
	h.mu.Unlock()
	select {
	case slot <- struct{}{}:
		return func() { <-slot }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
