package sitediag

import (
	"context"

	"github.com/sitediag/sitediag/net/httpprobe"
)

// UpOptions are the options of Up. The zero value follows redirects.
type UpOptions struct {
	RequestOptions `api:"followRedirect=true"`
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
	op := httpOp{name: "Up", failed: CodeSiteStatusFailed, redirectCode: true}
	return runHTTP(ctx, c, rawURL, &opts, &opts.RequestOptions, op, func(ctx context.Context, r *httpRequest) (*UpResult, error) {
		client := c.client(r)
		defer client.CloseIdleConnections()
		res, err := httpprobe.Up(ctx, client, r.target.URL, r.info.Settings.FollowRedirect.Bool())
		if err != nil {
			return nil, err
		}
		r.info.RedirectedURL = res.FinalURL
		return &UpResult{
			Reachable:    res.Reachable,
			StatusCode:   res.StatusCode,
			ReasonPhrase: res.ReasonPhrase,
			Host:         r.target.Display(),
			RequestInfo:  r.info,
		}, nil
	})
}

// RedirectCheckOptions are the options of RedirectCheck.
type RedirectCheckOptions struct {
	// ProxyCountry routes the requests through the proxy configured for
	// that country code. Empty means direct.
	ProxyCountry string `json:"proxyCountry"`
}

// Hop is one response of a redirect chain: its URL, status and headers
// (lower-case names, in the order received, Location as served).
type Hop = httpprobe.Hop

// Header is one response header line.
type Header = httpprobe.Header

// RedirectCheckResult is the chain of responses, the final one included.
type RedirectCheckResult struct {
	// Hops are the responses, the API's data.
	Hops []Hop `json:"hops"`
	// Host is the target's host, with a port when not the default.
	Host string `json:"-"`
	// Settings are the options the chain was followed with.
	Settings RedirectCheckOptions `json:"-"`
}

// RedirectCheck follows the redirects of rawURL, up to 10, and returns
// every response. Errors: CodeInvalidURL, CodeProxyCountryUnsupported,
// CodeTargetNotAllowed (a hop to a refused address; nothing is sent
// there), CodeTooManyRedirects (a loop or more than 10),
// CodeUnableToConnect (a hop got no response), CodeRedirectCheckFailed.
func (c *Client) RedirectCheck(ctx context.Context, rawURL string, opts RedirectCheckOptions) (*RedirectCheckResult, error) {
	op := httpOp{name: "RedirectCheck", failed: CodeRedirectCheckFailed, redirectCode: true}
	req := RequestOptions{FollowRedirect: On, ProxyCountry: opts.ProxyCountry}
	return runHTTP(ctx, c, rawURL, &opts, &req, op, func(ctx context.Context, r *httpRequest) (*RedirectCheckResult, error) {
		newClient, closeClient := c.recordingClient(r.proxy)
		defer closeClient()
		hops, err := httpprobe.RedirectChain(ctx, newClient, r.target.URL)
		if err != nil {
			return nil, err
		}
		return &RedirectCheckResult{Hops: hops, Host: r.target.Display(), Settings: opts}, nil
	})
}

// Up calls Client.Up on the default client.
func Up(ctx context.Context, rawURL string, opts UpOptions) (*UpResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).Up)
}

// RedirectCheck calls Client.RedirectCheck on the default client.
func RedirectCheck(ctx context.Context, rawURL string, opts RedirectCheckOptions) (*RedirectCheckResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).RedirectCheck)
}
