package sitediag

import (
	"context"
	"errors"
	"fmt"

	"github.com/sitediag/sitediag/internal/guard"
	"github.com/sitediag/sitediag/net/linkcheck"
)

// Limits of BrokenLink.
const (
	// MaxLinks is how many distinct links of a page are checked, in
	// document order.
	MaxLinks = linkcheck.DefaultMaxLinks
	// MaxPageBytes is how much of a page is read for links.
	MaxPageBytes = linkcheck.DefaultMaxPageBytes
)

// BrokenLinkOptions are the options of BrokenLink. The zero value follows
// redirects.
type BrokenLinkOptions struct {
	// NoFollowRedirect reports the first response of the page and of
	// each link, redirects (3xx) included, instead of following up to 10
	// redirects.
	NoFollowRedirect bool
	// ProxyCountry routes the requests through the proxy configured for
	// that country code. Empty means direct.
	ProxyCountry string
}

// LinkResult is one link: its absolute URL, its HTTP status (0 when no
// response came back) and, then, why (a few words, or
// "TARGET_NOT_ALLOWED" for a link the SSRF policy refuses).
type LinkResult = linkcheck.Result

// LinkSummary counts the links: every link is in exactly one of
// Successful (2xx), Redirects (3xx, when not following), Broken (4xx,
// other statuses, network errors, timeouts, refusals) and ServerError
// (5xx); Total is their sum; Forbidden (403) and TimedOut are parts of
// Broken.
type LinkSummary = linkcheck.Summary

// BrokenLinkResult is the check of one page's links. Links is the API's
// data and Summary its summary; the other fields feed its meta.
type BrokenLinkResult struct {
	// Links are the page's distinct links in document order, at most
	// MaxLinks.
	Links   []LinkResult
	Summary LinkSummary
	// LinksFound is the number of distinct links on the page, before
	// MaxLinks.
	LinksFound int
	// Host is the target's host, with a port when not the default (the
	// API's meta.url).
	Host string
	// RequestInfo's RedirectedURL is the URL the page was served at.
	RequestInfo
}

// Message is the API's message: "Found 3 broken links out of 12." (the
// links counted as Broken or ServerError) or "No broken links found.".
func (r *BrokenLinkResult) Message() string {
	bad := r.Summary.Broken + r.Summary.ServerError
	switch bad {
	case 0:
		return "No broken links found."
	case 1:
		return fmt.Sprintf("Found 1 broken link out of %d.", r.Summary.Total)
	}
	return fmt.Sprintf("Found %d broken links out of %d.", bad, r.Summary.Total)
}

// BrokenLink fetches the page at rawURL and checks every link on it (a,
// area, img and srcset, script, link except preconnect and dns-prefetch,
// iframe, frame, source, video, audio, track, object), concurrently, HEAD
// first and GET when HEAD is refused or fails, each within 10 s. A link
// the SSRF policy refuses is a broken result, not an error. Errors:
// CodeInvalidURL, CodeProxyCountryUnsupported, CodeTargetNotAllowed (the
// page or a redirect it follows is refused), CodeUnableToConnect (the
// page could not be fetched, or redirects in a loop),
// CodeBrokenLinkCheckFailed (such as when not every link could be checked
// within the operation's time).
func (c *Client) BrokenLink(ctx context.Context, rawURL string, opts BrokenLinkOptions) (*BrokenLinkResult, error) {
	t, proxy, err := c.httpTarget(rawURL, opts.ProxyCountry)
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	client := c.guard.NewHTTPClient(guard.HTTPOptions{Proxy: proxy})
	defer client.CloseIdleConnections()
	follow := !opts.NoFollowRedirect
	report, err := linkcheck.CheckPage(ctx, client, t.URL, linkcheck.Options{Follow: follow})
	switch {
	case errors.Is(err, linkcheck.ErrUnfinished):
		return nil, NewError(CodeBrokenLinkCheckFailed, err, "not every link could be checked in time")
	case err != nil:
		return nil, mapProbeError(err, CodeBrokenLinkCheckFailed)
	}
	links := report.Results
	if links == nil {
		links = []LinkResult{}
	}
	return &BrokenLinkResult{
		Links:       links,
		Summary:     report.Summary,
		LinksFound:  report.Found,
		Host:        t.Display(),
		RequestInfo: RequestInfo{URL: t.URL.String(), RedirectedURL: report.URL, FollowRedirect: follow, ProxyCountry: opts.ProxyCountry},
	}, nil
}

// BrokenLink calls Client.BrokenLink on the default client.
func BrokenLink(ctx context.Context, rawURL string, opts BrokenLinkOptions) (*BrokenLinkResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).BrokenLink)
}
