package sitediag

import (
	"context"
	"errors"
	"slices"

	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/lighthouse"
	"github.com/sitediag/sitediag/net/netx"
)

// LighthouseOptions are the options of Lighthouse and the API's body of
// /lighthouse. The zero value audits the desktop page, following
// redirects, every category.
type LighthouseOptions struct {
	// Device is desktop (Lighthouse's desktop preset) or mobile (its
	// default mobile emulation).
	Device string `json:"device" api:"enum=desktop|mobile,default=desktop"`
	// ProxyCountry routes the audit through the proxy configured for
	// that country. Empty means direct.
	ProxyCountry string `json:"proxyCountry"`
	// FollowRedirect audits the page a redirect leads to; off, a page
	// that redirects is CodeUnableToConnect.
	FollowRedirect Toggle `json:"followRedirect" api:"default=true"`
	// Parameters are Lighthouse CLI flags from an allow list
	// (lighthouse.ParseFlags): --only-categories, --only-audits,
	// --skip-audits, --preset, --form-factor, --screenEmulation.*,
	// --throttling-method, --throttling.*, --locale,
	// --emulated-user-agent, --blocked-url-patterns, --max-wait-for-load
	// (up to the job's deadline).
	Parameters []string `json:"parameters"`
	// Timeout, in seconds, bounds the audit once it has the worker, capped by
	// Config.LighthouseJobTimeout. Zero means that deadline.
	Timeout Seconds `json:"timeout" api:"min=1"`
}

// LighthouseScores are the category scores, 0–100; a category that did
// not run (--only-categories) or has no score is nil.
type LighthouseScores struct {
	Performance   *int `json:"performance"`
	Accessibility *int `json:"accessibility"`
	BestPractices *int `json:"bestPractices"`
	SEO           *int `json:"seo"`
}

// LighthouseResult is an audit: Lighthouse's reports, the scores, the
// page visited and the settings used.
type LighthouseResult struct {
	// HTMLReport and JSONReport are Lighthouse's reports.
	HTMLReport []byte `json:"-"`
	JSONReport []byte `json:"-"`
	// Scores are the category scores.
	Scores LighthouseScores `json:"scores"`
	// PageVisit's RedirectedURL is the URL Lighthouse audited.
	PageVisit `json:"-"`
	// Settings are the options the audit ran with, defaults filled in.
	Settings LighthouseOptions `json:"-"`
}

// loadErrors are the Lighthouse runtime errors that mean the page could
// not be loaded: the target's outcome, not the service's failure.
// PAGE_HUNG (the page's scripts stopped it from responding) is not among
// them: the network is not to blame.
var loadErrors = []string{"FAILED_DOCUMENT_REQUEST", "ERRORED_DOCUMENT_REQUEST", "DNS_FAILURE", "NOT_HTML",
	"NO_DOCUMENT_REQUEST", "INSECURE_DOCUMENT_REQUEST", "CHROME_INTERSTITIAL_ERROR", "NO_FCP"}

// Lighthouse audits the page at rawURL with the real Lighthouse (the npm
// package, run by a warm Node worker on a Chromium of the client's own);
// every request of the audit goes through the SSRF policy, and what the
// page may not load is refused silently and counted. Errors:
// CodeInvalidURL, CodeInvalidParameters (a parameter not on the allow
// list, named), CodeProxyCountryUnsupported, CodeTargetNotAllowed,
// CodeUnableToConnect (Lighthouse could not load the page, or a redirect
// not followed), CodeLighthouseUnavailable (Node, the package or
// Chromium missing), CodeBusy, CodeLighthouseUnexpected.
func (c *Client) Lighthouse(ctx context.Context, rawURL string, opts LighthouseOptions) (_ *LighthouseResult, err error) {
	ctx, end := c.startOp(ctx, "Lighthouse", rawURL, opts)
	defer end(&err)
	if err := c.resolve(&opts); err != nil {
		return nil, err
	}
	page := PageOptions{Device: opts.Device, ProxyCountry: opts.ProxyCountry, Timeout: opts.Timeout}
	p, err := c.newPage(rawURL, &page, c.lighthouse.JobTimeout())
	if err != nil {
		return nil, err
	}
	opts.Timeout = page.Timeout
	if opts.Parameters == nil {
		opts.Parameters = []string{}
	}
	flags, err := lighthouse.ParseFlags(opts.Parameters, p.job.Timeout)
	var fe *lighthouse.FlagError
	if errors.As(err, &fe) {
		return nil, InvalidParameter("parameters", fe.Flag+": "+fe.Problem)
	}
	res := &LighthouseResult{PageVisit: PageVisit{URL: p.target.URL.String()}, Settings: opts}
	// Availability before the operation (DESIGN §7), as the browser
	// operations check theirs before loading the target.
	if ready, msg := c.lighthouse.Status(); !ready {
		return nil, NewError(CodeLighthouseUnavailable, nil, "Lighthouse is not available on this server: %s", msg)
	}
	// The audit has its own deadline (LighthouseJobTimeout) once it has
	// the worker; the client's Timeout bounds what comes before it (the
	// target's check, the wait in the queue).
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.Timeout+c.lighthouse.JobTimeout())
		defer cancel()
	}
	if err := c.checkPage(ctx, p.target); err != nil {
		return nil, err
	}
	rep, err := c.lighthouse.Audit(ctx, res.URL, lighthouse.Options{Desktop: opts.Device == "desktop", Flags: flags,
		Upstream: p.job.Upstream, Timeout: p.job.Timeout})
	if err != nil {
		return nil, mapLighthouseError(err)
	}
	if re := rep.RuntimeError; re != nil {
		var proxyErr *netx.ProxyError
		if errors.As(rep.Failure, &proxyErr) { // the operator's, not the target's
			return nil, NewError(CodeLighthouseUnexpected, rep.Failure, "the proxy for this country could not be used")
		}
		if slices.Contains(loadErrors, re.Code) {
			return nil, NewError(CodeUnableToConnect, nil, "%s: %s (%s)", res.URL, re.Message, re.Code)
		}
		return nil, NewError(CodeLighthouseUnexpected, nil, "Lighthouse could not audit the page: %s (%s)", re.Message, re.Code)
	}
	res.RedirectedURL, res.BlockedRequests = rep.FinalURL, rep.Refused
	if !opts.FollowRedirect.Bool() && rep.FinalURL != res.URL {
		return nil, NewError(CodeUnableToConnect, nil, "the page redirects to %s; set followRedirect to audit the page it leads to", rep.FinalURL)
	}
	res.HTMLReport, res.JSONReport = rep.HTML, rep.JSON
	score := func(id string) *int {
		if v, ok := rep.Scores[id]; ok {
			return &v
		}
		return nil
	}
	res.Scores = LighthouseScores{Performance: score("performance"), Accessibility: score("accessibility"),
		BestPractices: score("best-practices"), SEO: score("seo")}
	return res, nil
}

// mapLighthouseError maps what the runner returns to the documented codes.
func mapLighthouseError(err error) *Error {
	var busy *browser.BusyError
	switch {
	case errors.As(err, &busy):
		return RetryLater(CodeBusy, err, busy.RetryAfter, "the Lighthouse worker is busy and its queue is full; try again later")
	case errors.Is(err, lighthouse.ErrUnavailable):
		return NewError(CodeLighthouseUnavailable, err, "Lighthouse is not available on this server")
	case errors.Is(err, context.DeadlineExceeded):
		return NewError(CodeLighthouseUnexpected, err, "the audit did not finish in time")
	case errors.Is(err, lighthouse.ErrWorkerDied):
		return NewError(CodeLighthouseUnexpected, err, "the Lighthouse worker died during the audit")
	}
	return NewError(CodeLighthouseUnexpected, err, "Lighthouse failed")
}

// Lighthouse calls Client.Lighthouse on the default client.
func Lighthouse(ctx context.Context, rawURL string, opts LighthouseOptions) (*LighthouseResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).Lighthouse)
}
