package sitediag

import (
	"context"
	"errors"

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
	// RequestOptions: unfollowed, the page's and each link's first
	// response is reported, redirects (3xx) included.
	RequestOptions `api:"followRedirect=true"`
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
	op := httpOp{name: "BrokenLink", failed: CodeBrokenLinkCheckFailed}
	return runHTTP(ctx, c, rawURL, &opts, &opts.RequestOptions, op, func(ctx context.Context, r *httpRequest) (*BrokenLinkResult, error) {
		client := c.client(r)
		defer client.CloseIdleConnections()
		report, err := linkcheck.CheckPage(ctx, client, r.target.URL, linkcheck.Options{Follow: r.info.Settings.FollowRedirect.Bool()})
		switch {
		case errors.Is(err, linkcheck.ErrUnfinished):
			return nil, NewError(CodeBrokenLinkCheckFailed, err, "not every link could be checked in time")
		case err != nil:
			return nil, err
		}
		links := report.Results
		if links == nil {
			links = []LinkResult{}
		}
		r.info.RedirectedURL = report.URL
		return &BrokenLinkResult{
			Links:       links,
			Summary:     report.Summary,
			LinksFound:  report.Found,
			Host:        r.target.Display(),
			RequestInfo: r.info,
		}, nil
	})
}

// BrokenLink calls Client.BrokenLink on the default client.
func BrokenLink(ctx context.Context, rawURL string, opts BrokenLinkOptions) (*BrokenLinkResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).BrokenLink)
}
