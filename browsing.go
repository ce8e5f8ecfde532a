package sitediag

import (
	"context"
	"errors"
	"time"

	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/internal/neterr"
	"github.com/sitediag/sitediag/internal/target"
	"github.com/sitediag/sitediag/net/netx"
	"github.com/sitediag/sitediag/option"
)

// PageOptions are the options every browser operation shares; each
// operation's options embed them, with the operation's own defaults for
// the toggles in the embedding field's api tag. The zero value is a
// desktop page loaded directly with the operation's documented defaults.
type PageOptions struct {
	// Device is desktop (1366×768) or mobile (390×844 at 3×, touch,
	// mobile user agent).
	Device string `json:"device" api:"enum=desktop|mobile,default=desktop"`
	// ProxyCountry loads the page through the proxy configured for that
	// country. Empty means direct.
	ProxyCountry string `json:"proxyCountry"`
	// BlockAds refuses requests to ad and tracker hosts
	// (browser.IsAdHost), counted apart from the SSRF policy's refusals.
	BlockAds Toggle `json:"blockAds"`
	// HideCookie hides the common consent platforms' banners and
	// restores scrolling.
	HideCookie Toggle `json:"hideCookie"`
	// SkipCaptcha waits, for a bounded time, for a bot challenge page to
	// clear by itself. It never solves one.
	SkipCaptcha Toggle `json:"skipCaptcha"`
	// Timeout, in seconds, shortens the job's deadline, which runs from
	// the moment
	// the job has a browser slot: the page gets half of it (at most
	// 30 s) to load, the rest is left for the operation. A longer
	// timeout is capped by the job's deadline (Config.BrowserJobTimeout;
	// Config.LighthouseJobTimeout for Lighthouse). Without a browser
	// (renderJS off) it bounds the page's GET. Zero means the job's
	// deadline.
	Timeout Seconds `json:"timeout" api:"min=1"`
}

// PageVisit is what every browser operation's result says of the page
// it loaded.
type PageVisit struct {
	// URL is the target as requested (normalised).
	URL string `json:"url"`
	// RedirectedURL is the page's final URL, redirects followed.
	RedirectedURL string `json:"redirectedURL"`
	// BlockedRequests counts what the page tried to load that the SSRF
	// policy refused.
	BlockedRequests int `json:"blockedRequests"`
	// LoadTimedOut says the page had not finished loading (its load
	// event) when the wait for it ended: the operation went on with the
	// page as it was then.
	LoadTimedOut bool `json:"loadTimedOut"`
	// ScriptsStopped says the page's scripts were then keeping it busy
	// (as while(true){} does): they were stopped, so that the page could
	// still be read or captured as it was.
	ScriptsStopped bool `json:"scriptsStopped"`
}

// loaded records what loading the page found.
func (pv *PageVisit) loaded(v *browser.Visit) {
	pv.RedirectedURL, pv.LoadTimedOut, pv.ScriptsStopped = v.URL, !v.Loaded, v.ScriptsStopped
}

// page is a browser operation's job, checked and resolved.
type page struct {
	target *target.Target
	job    browser.JobOptions
	load   browser.LoadOptions
	// issues records the page's mixed-content issues from before it
	// loads (browser.Job.MixedContentIssues).
	issues bool
}

// newPage checks rawURL and opts, which resolve has resolved, and sets
// opts.Timeout to the job's: capped by deadline, the browser's job
// deadline when zero.
func (c *Client) newPage(rawURL string, opts *PageOptions, deadline time.Duration) (*page, error) {
	t, upstream, err := c.urlVia(rawURL, opts.ProxyCountry)
	if err != nil {
		return nil, err
	}
	if deadline == 0 {
		deadline = c.browser.JobTimeout(browser.JobOptions{})
	}
	if opts.Timeout == 0 || opts.Timeout.Duration() > deadline {
		opts.Timeout = option.SecondsOf(deadline)
	}
	return &page{
		target: t,
		job: browser.JobOptions{Device: browser.Device(opts.Device), Upstream: upstream,
			BlockAds: opts.BlockAds.Bool(), Timeout: opts.Timeout.Duration()},
		load: browser.LoadOptions{HideCookie: opts.HideCookie.Bool(), SkipCaptcha: opts.SkipCaptcha.Bool()},
	}, nil
}

// pageOp describes a browser operation to runPage.
type pageOp struct {
	// name is the operation's name, for its span: "Screenshot".
	name string
	// failed is the operation's own failure code.
	failed Code
}

// runPage is the opening the browser operations share: runOp with opts
// (whose embedded PageOptions pageOpts points into) and the page opened
// as newPage does, then use on the page, its error mapped to the
// documented codes (an *Error passes as it is).
func runPage[O, R any](ctx context.Context, c *Client, rawURL string, opts *O, pageOpts *PageOptions, op pageOp,
	use func(ctx context.Context, p *page) (R, error)) (R, error) {
	open := func() (*page, error) { return c.newPage(rawURL, pageOpts, 0) }
	return runOp(ctx, c, op.name, rawURL, opts, open, use, func(err error) error { return mapBrowserError(err, op.failed) })
}

// visit runs use on p's page in a browser job, once it has loaded, and
// returns what the job saw of it. use may be nil.
func (c *Client) visit(ctx context.Context, p *page, use func(ctx context.Context, j *browser.Job) error) (PageVisit, error) {
	pv := PageVisit{URL: p.target.URL.String()}
	err := c.browser.Do(ctx, p.job, func(ctx context.Context, j *browser.Job) error {
		v, err := c.load(ctx, j, p)
		if err != nil {
			return err
		}
		pv.loaded(v)
		if use != nil {
			err = use(ctx, j)
		}
		pv.BlockedRequests = j.Stats().Refused
		return err
	})
	return pv, err
}

// load checks p's target and loads it in j.
func (c *Client) load(ctx context.Context, j *browser.Job, p *page) (*browser.Visit, error) {
	if p.issues {
		if err := j.EnableIssues(ctx); err != nil {
			return nil, err
		}
	}
	if err := c.checkPage(ctx, p.target); err != nil {
		return nil, err
	}
	return j.Load(ctx, p.target.URL.String(), p.load)
}

// checkPage refuses a page before the browser navigates when its host
// resolves only to refused addresses, or not at all. It runs inside the
// job, after the browser's availability is known (DESIGN §7 orders 503
// before the operation). It is a fast path, not the boundary: the job's
// filtering proxy still checks every request the page makes, this one
// included, at connect time.
func (c *Client) checkPage(ctx context.Context, t *target.Target) error {
	if _, err := c.guard.Resolve(ctx, t.Host); err != nil {
		return resolveFailed(err, t.URL.String())
	}
	return nil
}

// resolveFailed maps a failed guard.Resolve of the target named name:
// TARGET_NOT_ALLOWED when only refused addresses came back, else the
// target's outcome, UNABLE_TO_CONNECT, saying why ("name not resolved",
// "DNS servers did not answer in time", …).
func resolveFailed(err error, name string) *Error {
	if errors.Is(err, netx.ErrNotAllowed) {
		return notAllowed(err)
	}
	return NewError(CodeUnableToConnect, err, "%s: %s", name, neterr.Why(err))
}

// mapBrowserError maps what the browser returns to the documented codes;
// failed is the operation's own failure code.
func mapBrowserError(err error, failed Code) *Error {
	var busy *browser.BusyError
	var unavailable *browser.UnavailableError
	var nav *browser.NavigationError
	var selector *browser.SelectorError
	var proxyErr *netx.ProxyError
	var own *Error
	switch {
	case errors.As(err, &own): // a check of ours inside the job, such as checkPage
		return own
	case errors.As(err, &busy):
		return RetryLater(CodeBusy, err, busy.RetryAfter, "every browser slot is busy and the queue is full; try again later")
	case errors.Is(err, browser.ErrNotFound):
		return NewError(CodeBrowserUnavailable, err, "Chromium is not installed on this server")
	case errors.As(err, &unavailable), errors.Is(err, browser.ErrClosed):
		return NewError(CodeBrowserUnavailable, err, "the browser could not be started")
	case errors.Is(err, netx.ErrNotAllowed):
		return notAllowed(err)
	case errors.As(err, &proxyErr): // the operator's, not the target's
		return NewError(failed, err, "the proxy for this country could not be used")
	case errors.As(err, &nav):
		return NewError(CodeUnableToConnect, err, "%s: %s", nav.URL, nav.Why())
	case errors.Is(err, browser.ErrNoElement):
		return NewError(CodeInvalidParameters, err,
			"selector: matched no visible element on the page (set fallbackToFullPage to capture the full page instead)")
	case errors.As(err, &selector):
		return NewError(CodeInvalidParameters, err, "selector: is not a valid CSS selector")
	case errors.Is(err, browser.ErrCrashed):
		return NewError(failed, err, "the browser crashed while rendering the page")
	case errors.Is(err, context.DeadlineExceeded):
		return NewError(failed, err, "the page did not finish rendering in time")
	}
	return NewError(failed, err, "the browser could not render the page")
}
