package sitediag

import (
	"context"
	"errors"
	"fmt"

	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/internal/guard"
	"github.com/sitediag/sitediag/internal/target"
)

// browserNetwork hands the guard's filtering proxies to the browser.
type browserNetwork struct{ g *guard.Guard }

func (n browserNetwork) ListenProxy(opts browser.ProxyOptions) (browser.Proxy, error) {
	p, err := n.g.ListenProxy(guard.ProxyOptions(opts))
	if err != nil {
		return nil, err
	}
	return p, nil
}

// pageOptions are the options every browser operation shares, checked.
type pageOptions struct {
	job  browser.JobOptions
	load browser.LoadOptions
}

// newPageOptions checks device and proxyCountry and sets up the job.
func (c *Client) newPageOptions(device, proxyCountry string) (pageOptions, error) {
	var po pageOptions
	d := browser.Device(device)
	if !d.Valid() {
		return po, InvalidParameter("device", "must be desktop or mobile")
	}
	upstream, err := c.proxyFor(proxyCountry)
	if err != nil {
		return po, err
	}
	po.job = browser.JobOptions{Device: d, Upstream: upstream}
	return po, nil
}

// deviceName is the device's name for meta.
func deviceName(d browser.Device) string {
	if d == "" {
		return string(browser.Desktop)
	}
	return string(d)
}

// checkRange refuses v outside [lo, hi]; zero means unset and passes.
func checkRange[T int | float64](field string, v, lo, hi T) error {
	if v != 0 && (v < lo || v > hi) {
		return InvalidParameter(field, fmt.Sprintf("must be between %v and %v", lo, hi))
	}
	return nil
}

// checkPage refuses a page before the browser navigates when its host
// resolves only to refused addresses, or not at all. It runs inside the
// job, after the browser's availability is known (DESIGN §7 orders 503
// before the operation). It is a fast path, not the boundary: the job's
// filtering proxy still checks every request the page makes, this one
// included, at connect time.
func (c *Client) checkPage(ctx context.Context, t *target.Target) error {
	_, err := c.guard.Resolve(ctx, t.Host)
	var resolveErr *guard.ResolveError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, guard.ErrNotAllowed):
		return notAllowed(err)
	case errors.As(err, &resolveErr):
		return NewError(CodeUnableToConnect, err, "%s: name not resolved", t.URL)
	}
	return NewError(CodeUnableToConnect, err, "%s: the name could not be resolved", t.URL)
}

// mapBrowserError maps what the browser returns to the documented codes;
// failed is the operation's own failure code.
func mapBrowserError(err error, failed Code) *Error {
	var busy *browser.BusyError
	var unavailable *browser.UnavailableError
	var nav *browser.NavigationError
	var selector *browser.SelectorError
	var own *Error
	switch {
	case errors.As(err, &own): // a check of ours inside the job, such as checkPage
		return own
	case errors.As(err, &busy):
		e := RetryLater(CodeBusy, busy.RetryAfter, "every browser slot is busy and the queue is full; try again later")
		e.Err = err
		return e
	case errors.Is(err, browser.ErrNotFound):
		return NewError(CodeBrowserUnavailable, err, "Chromium is not installed on this server")
	case errors.As(err, &unavailable), errors.Is(err, browser.ErrClosed):
		return NewError(CodeBrowserUnavailable, err, "the browser could not be started")
	case errors.Is(err, guard.ErrNotAllowed):
		return notAllowed(err)
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
