package sitediag

import (
	"context"
	"errors"

	"github.com/sitediag/sitediag/internal/guard"
	"github.com/sitediag/sitediag/internal/neterr"
	"github.com/sitediag/sitediag/net/httpprobe"
)

// UpOptions are the options of Up. The zero value follows redirects.
type UpOptions struct {
	// NoFollowRedirect reports on the first response instead of
	// following up to 10 redirects.
	NoFollowRedirect bool
	// ProxyCountry routes the request through the proxy configured for
	// that country code. Empty means direct.
	ProxyCountry string
}

// UpResult says whether a site answered. StatusCode and ReasonPhrase are
// the API's data; the other fields feed its meta.
type UpResult struct {
	// Reachable is true when the site answered with any HTTP response.
	Reachable bool `json:"-"`
	// StatusCode is the final response's status; 0 when unreachable.
	StatusCode int `json:"statusCode"`
	// ReasonPhrase is the status text, or a few words on why the site
	// could not be reached.
	ReasonPhrase string `json:"reasonPhrase"`
	// Host is the target's host, with a port when not the default (the
	// API's meta.url).
	Host string `json:"-"`
	// RequestInfo's RedirectedURL is the last URL requested.
	RequestInfo
}

// Up checks whether the site at rawURL answers HTTP. A site that does not
// answer is a result with Reachable false. Errors: CodeInvalidURL,
// CodeProxyCountryUnsupported, CodeTargetNotAllowed (the target or a
// redirect it follows is refused), CodeTooManyRedirects (a loop or more
// than 10), CodeSiteStatusFailed (also when the proxy for ProxyCountry
// could not be used).
func (c *Client) Up(ctx context.Context, rawURL string, opts UpOptions) (*UpResult, error) {
	t, proxy, err := c.httpTarget(rawURL, opts.ProxyCountry)
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	client := c.guard.NewHTTPClient(guard.HTTPOptions{Proxy: proxy})
	defer client.CloseIdleConnections()

	follow := !opts.NoFollowRedirect
	res, err := httpprobe.Up(ctx, client, t.URL, follow)
	if err != nil {
		return nil, mapHTTPError(err, CodeSiteStatusFailed)
	}
	return &UpResult{
		Reachable:    res.Reachable,
		StatusCode:   res.StatusCode,
		ReasonPhrase: res.ReasonPhrase,
		Host:         t.Display(),
		RequestInfo:  RequestInfo{URL: t.URL.String(), RedirectedURL: res.FinalURL, FollowRedirect: follow, ProxyCountry: opts.ProxyCountry},
	}, nil
}

// RedirectCheckOptions are the options of RedirectCheck.
type RedirectCheckOptions struct {
	// ProxyCountry routes the requests through the proxy configured for
	// that country code. Empty means direct.
	ProxyCountry string
}

// Hop is one response of a redirect chain: its URL, status and headers
// (lower-case names, in the order received, Location as served).
type Hop = httpprobe.Hop

// Header is one response header line.
type Header = httpprobe.Header

// RedirectCheckResult is the chain of responses, the final one included.
type RedirectCheckResult struct {
	Hops []Hop
	// Host is the target's host, with a port when not the default.
	Host string
	// ProxyCountry echoes the option.
	ProxyCountry string
}

// RedirectCheck follows the redirects of rawURL, up to 10, and returns
// every response. Errors: CodeInvalidURL, CodeProxyCountryUnsupported,
// CodeTargetNotAllowed (a hop to a refused address; nothing is sent
// there), CodeTooManyRedirects (a loop or more than 10),
// CodeUnableToConnect (a hop got no response), CodeRedirectCheckFailed.
func (c *Client) RedirectCheck(ctx context.Context, rawURL string, opts RedirectCheckOptions) (*RedirectCheckResult, error) {
	t, proxy, err := c.httpTarget(rawURL, opts.ProxyCountry)
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	newClient, closeClient := c.recordingClient(proxy)
	defer closeClient()
	hops, err := httpprobe.RedirectChain(ctx, newClient, t.URL)
	if err != nil {
		return nil, mapHTTPError(err, CodeRedirectCheckFailed)
	}
	return &RedirectCheckResult{Hops: hops, Host: t.Display(), ProxyCountry: opts.ProxyCountry}, nil
}

// mapHTTPError maps what the HTTP probes return to the documented codes;
// failed is the operation's own failure code. A country proxy that could
// not be used is the operation's failure, not the target's.
func mapHTTPError(err error, failed Code) *Error {
	var fetchErr *httpprobe.FetchError
	var proxyErr *guard.ProxyError
	switch {
	case errors.Is(err, guard.ErrNotAllowed):
		return notAllowed(err)
	case errors.As(err, &proxyErr):
		return NewError(failed, err, "the proxy for this country could not be used")
	case errors.Is(err, httpprobe.ErrTooManyRedirects):
		return NewError(CodeTooManyRedirects, err, "more than %d redirects, or a redirect loop", httpprobe.MaxRedirects)
	case errors.Is(err, context.DeadlineExceeded):
		return NewError(CodeUnableToConnect, err, "the target did not answer in time")
	case errors.As(err, &fetchErr):
		return NewError(CodeUnableToConnect, err, "%s: %s", fetchErr.URL, neterr.Why(fetchErr.Err))
	}
	return NewError(failed, err, "the operation could not be completed")
}

// mapProbeError is mapHTTPError for the operations that do not document
// TOO_MANY_REDIRECTS: a loop or an 11th redirect is their cannot-connect
// outcome.
func mapProbeError(err error, failed Code) *Error {
	if errors.Is(err, httpprobe.ErrTooManyRedirects) {
		return NewError(CodeUnableToConnect, err, "more than %d redirects, or a redirect loop", httpprobe.MaxRedirects)
	}
	return mapHTTPError(err, failed)
}

// Up calls Client.Up on the default client.
func Up(ctx context.Context, rawURL string, opts UpOptions) (*UpResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).Up)
}

// RedirectCheck calls Client.RedirectCheck on the default client.
func RedirectCheck(ctx context.Context, rawURL string, opts RedirectCheckOptions) (*RedirectCheckResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).RedirectCheck)
}
