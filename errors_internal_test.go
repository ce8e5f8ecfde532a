package sitediag

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/httpprobe"
	"github.com/sitediag/sitediag/net/netx"
)

// outcome is what a mapper's *Error says, for go-cmp.
type outcome struct {
	Code    Code
	Details string
}

func outcomeOf(e *Error) outcome { return outcome{e.Code, e.Details} }

func TestMapHTTPError(t *testing.T) {
	refused := &httpprobe.FetchError{URL: "https://a.test/", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		name string
		err  error
		want outcome
	}{
		{"policy", fmt.Errorf("dial: %w", netx.ErrNotAllowed), outcome{CodeTargetNotAllowed, "the target is not allowed"}},
		{"country proxy", &netx.ProxyError{Proxy: "127.0.0.1:1", Err: syscall.ECONNREFUSED}, outcome{CodeTTFBFailed, "the proxy for this country could not be used"}},
		{"redirects", httpprobe.ErrTooManyRedirects, outcome{CodeTooManyRedirects, "more than 10 redirects, or a redirect loop"}},
		{"deadline", fmt.Errorf("get: %w", context.DeadlineExceeded), outcome{CodeUnableToConnect, "the target did not answer in time"}},
		{"refused", refused, outcome{CodeUnableToConnect, "https://a.test/: connection refused"}},
		{"not resolved", &httpprobe.FetchError{URL: "https://a.test/", Err: &guard.ResolveError{Host: "a.test", Err: errors.New("nx")}}, outcome{CodeUnableToConnect, "https://a.test/: name not resolved"}},
		{"DNS servers silent until the deadline", &httpprobe.FetchError{URL: "https://a.test/", Err: &guard.ResolveError{Host: "a.test", Err: fmt.Errorf("%w: %w", dns.ErrNoAnswer, context.DeadlineExceeded)}},
			outcome{CodeUnableToConnect, "https://a.test/: DNS servers did not answer in time"}},
		{"own error passes", InvalidParameter("url", "bad"), outcome{CodeInvalidParameters, "url: bad"}},
		{"anything else", errors.New("boom"), outcome{CodeTTFBFailed, "the operation could not be completed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mapHTTPError(tc.err, CodeTTFBFailed)
			if diff := cmp.Diff(tc.want, outcomeOf(e)); diff != "" {
				t.Errorf("mapHTTPError(%v) (-want +got):\n%s", tc.err, diff)
			}
			if !errors.Is(e, tc.err) && e.Err != nil {
				t.Errorf("the cause %v is not in the chain of %v", tc.err, e)
			}
		})
	}
}

func TestMapBrowserError(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want outcome
	}{
		{"busy", &browser.BusyError{RetryAfter: 3 * time.Second}, outcome{CodeBusy, "every browser slot is busy and the queue is full; try again later"}},
		{"not installed", fmt.Errorf("start: %w", browser.ErrNotFound), outcome{CodeBrowserUnavailable, "Chromium is not installed on this server"}},
		{"closed", browser.ErrClosed, outcome{CodeBrowserUnavailable, "the browser could not be started"}},
		{"policy", &browser.NavigationError{URL: "https://a.test/", Err: netx.ErrNotAllowed}, outcome{CodeTargetNotAllowed, "the target is not allowed"}},
		{"navigation", &browser.NavigationError{URL: "https://a.test/", Reason: "net::ERR_CONNECTION_REFUSED"}, outcome{CodeUnableToConnect, "https://a.test/: connection refused"}},
		{"no element", browser.ErrNoElement, outcome{CodeInvalidParameters, "selector: matched no visible element on the page (set fallbackToFullPage to capture the full page instead)"}},
		{"crash", browser.ErrCrashed, outcome{CodeScreenshotFailed, "the browser crashed while rendering the page"}},
		{"deadline", context.DeadlineExceeded, outcome{CodeScreenshotFailed, "the page did not finish rendering in time"}},
		{"anything else", errors.New("boom"), outcome{CodeScreenshotFailed, "the browser could not render the page"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mapBrowserError(tc.err, CodeScreenshotFailed)
			if diff := cmp.Diff(tc.want, outcomeOf(e)); diff != "" {
				t.Errorf("mapBrowserError(%v) (-want +got):\n%s", tc.err, diff)
			}
		})
	}
	e := mapBrowserError(&browser.BusyError{RetryAfter: 3 * time.Second}, CodeScreenshotFailed)
	if e.RetryAfter != 3*time.Second {
		t.Errorf("BUSY RetryAfter = %v, want 3s", e.RetryAfter)
	}
}

func TestErrorContract(t *testing.T) {
	e := fmt.Errorf("op: %w", NewError(CodeUnableToConnect, syscall.ECONNREFUSED, "%s: %s", "https://a.test/", "connection refused"))
	if !errors.Is(e, ErrUnableToConnect) || errors.Is(e, ErrTargetNotAllowed) {
		t.Errorf("errors.Is matches on the code: got Is(ErrUnableToConnect)=%v, Is(ErrTargetNotAllowed)=%v",
			errors.Is(e, ErrUnableToConnect), errors.Is(e, ErrTargetNotAllowed))
	}
	if !errors.Is(e, syscall.ECONNREFUSED) {
		t.Error("the cause is not in the chain")
	}
	if got := CodeOf(e); got != CodeUnableToConnect {
		t.Errorf("CodeOf = %q, want %q", got, CodeUnableToConnect)
	}
	if got := CodeOf(errors.New("plain")); got != "" {
		t.Errorf("CodeOf(plain) = %q, want empty", got)
	}
	r := RetryLater(CodeBusy, nil, 2*time.Second, "slow down")
	if r.Code != CodeBusy || r.RetryAfter != 2*time.Second || r.Details != "slow down" {
		t.Errorf("RetryLater: %+v", r)
	}
}
