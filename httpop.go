package sitediag

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/sitediag/sitediag/internal/neterr"
	"github.com/sitediag/sitediag/internal/target"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/httpprobe"
	"github.com/sitediag/sitediag/net/netx"
)

// RequestOptions are the options every HTTP-level operation shares; each
// operation's options embed them, with the operation's default for
// followRedirect in the embedding field's api tag.
type RequestOptions struct {
	// FollowRedirect follows up to 10 redirects and reports on the final
	// response.
	FollowRedirect Toggle `json:"followRedirect"`
	// ProxyCountry routes the requests through the proxy configured for
	// that country code. Empty means direct.
	ProxyCountry string `json:"proxyCountry"`
}

// RequestInfo is the part of an HTTP-level result that describes the
// request rather than the site; the API reports it in meta.
type RequestInfo struct {
	// URL is the URL asked for, as normalised.
	URL string `json:"-"`
	// RedirectedURL is the URL of the response reported: the final one
	// when redirects were followed, else URL.
	RedirectedURL string `json:"-"`
	// Settings are the options the requests were made with, defaults
	// filled in.
	Settings RequestOptions `json:"-"`
}

// httpOp describes an HTTP-level operation to runHTTP.
type httpOp struct {
	// name is the operation's name, for its span: "Up".
	name string
	// failed is the operation's own failure code.
	failed Code
	// redirectCode says the operation documents TOO_MANY_REDIRECTS; the
	// others report a loop as their cannot-connect outcome.
	redirectCode bool
}

// httpRequest is an HTTP-level operation's target, checked, with the
// proxy of its country (nil for none) and its RequestInfo so far.
type httpRequest struct {
	target *target.Target
	proxy  *url.URL
	info   RequestInfo
}

// runHTTP is the opening every HTTP-level operation shares: runOp with
// opts (whose embedded RequestOptions req points into) and rawURL
// checked with the proxy of its country, then probe, its error mapped to
// the documented codes (an *Error passes as it is).
func runHTTP[O, R any](ctx context.Context, c *Client, rawURL string, opts *O, req *RequestOptions, op httpOp,
	probe func(ctx context.Context, r *httpRequest) (R, error)) (R, error) {
	open := func() (*httpRequest, error) {
		t, proxy, err := c.urlVia(rawURL, req.ProxyCountry)
		if err != nil {
			return nil, err
		}
		u := t.URL.String()
		return &httpRequest{target: t, proxy: proxy, info: RequestInfo{URL: u, RedirectedURL: u, Settings: *req}}, nil
	}
	return runOp(ctx, c, op.name, rawURL, opts, open, probe, func(err error) error {
		if !op.redirectCode && errors.Is(err, httpprobe.ErrTooManyRedirects) {
			return NewError(CodeUnableToConnect, err, "more than %d redirects, or a redirect loop", httpprobe.MaxRedirects)
		}
		return mapHTTPError(err, op.failed)
	})
}

// client returns a guarded HTTP client through r's proxy; close it with
// CloseIdleConnections.
func (c *Client) client(r *httpRequest) *http.Client {
	return c.guard.NewHTTPClient(guard.HTTPOptions{Proxy: r.proxy})
}

// mapHTTPError maps what the HTTP probes return to the documented codes;
// failed is the operation's own failure code. A country proxy that could
// not be used is the operation's failure, not the target's.
func mapHTTPError(err error, failed Code) *Error {
	var own *Error
	var fetchErr *httpprobe.FetchError
	var proxyErr *netx.ProxyError
	var resolveErr *guard.ResolveError
	switch {
	case errors.As(err, &own):
		return own
	case errors.Is(err, netx.ErrNotAllowed):
		return notAllowed(err)
	case errors.As(err, &proxyErr):
		return NewError(failed, err, "the proxy for this country could not be used")
	case errors.Is(err, httpprobe.ErrTooManyRedirects):
		return NewError(CodeTooManyRedirects, err, "more than %d redirects, or a redirect loop", httpprobe.MaxRedirects)
	case errors.As(err, &fetchErr) && errors.As(err, &resolveErr):
		// Before the deadline: DNS servers that never answer run it out.
		return NewError(CodeUnableToConnect, err, "%s: %s", fetchErr.URL, neterr.Why(fetchErr.Err))
	case errors.Is(err, context.DeadlineExceeded):
		return NewError(CodeUnableToConnect, err, "the target did not answer in time")
	case errors.As(err, &fetchErr):
		return NewError(CodeUnableToConnect, err, "%s: %s", fetchErr.URL, neterr.Why(fetchErr.Err))
	}
	return NewError(failed, err, "the operation could not be completed")
}
