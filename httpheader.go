package sitediag

import (
	"context"

	"github.com/sitediag/sitediag/net/httpprobe"
)

// HTTPHeaderOptions are the options of HTTPHeader. The zero value reports
// the first response, without following redirects.
type HTTPHeaderOptions struct {
	// FollowRedirect follows up to 10 redirects and reports the final
	// response's headers.
	FollowRedirect bool
	// ProxyCountry routes the requests through the proxy configured for
	// that country code. Empty means direct.
	ProxyCountry string
}

// HTTPHeaderResult is a response's headers. Headers is the API's data;
// the other fields feed its meta.
type HTTPHeaderResult struct {
	// Headers are one item per header line, names in lower case, in the
	// order the server sent them; repeated headers stay separate.
	Headers []Header
	// StatusCode is the response's status.
	StatusCode int
	RequestInfo
}

// HTTPHeader returns the headers of rawURL's response, as sent. The
// requests are HTTP/1.1, one per connection, so the raw header lines can
// be read. Errors: CodeInvalidURL, CodeProxyCountryUnsupported,
// CodeTargetNotAllowed, CodeUnableToConnect (not resolved, refused, timed
// out, or a redirect loop), CodeHTTPHeaderFailed.
func (c *Client) HTTPHeader(ctx context.Context, rawURL string, opts HTTPHeaderOptions) (*HTTPHeaderResult, error) {
	t, proxy, err := c.httpTarget(rawURL, opts.ProxyCountry)
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	newClient, closeClient := c.recordingClient(proxy)
	defer closeClient()
	hops, err := httpprobe.Headers(ctx, newClient, t.URL, opts.FollowRedirect)
	if err != nil {
		return nil, mapProbeError(err, CodeHTTPHeaderFailed)
	}
	last := hops[len(hops)-1]
	headers := last.Headers
	if headers == nil {
		headers = []Header{}
	}
	return &HTTPHeaderResult{
		Headers:     headers,
		StatusCode:  last.Status,
		RequestInfo: RequestInfo{URL: t.URL.String(), RedirectedURL: last.URL, FollowRedirect: opts.FollowRedirect, ProxyCountry: opts.ProxyCountry},
	}, nil
}

// HTTPHeader calls Client.HTTPHeader on the default client.
func HTTPHeader(ctx context.Context, rawURL string, opts HTTPHeaderOptions) (*HTTPHeaderResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).HTTPHeader)
}
