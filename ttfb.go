package sitediag

import (
	"context"

	"github.com/sitediag/sitediag/net/httpprobe"
)

// TTFBOptions are the options of TTFB. The zero value measures the first
// response, without following redirects.
type TTFBOptions struct {
	// FollowRedirect follows up to 10 redirects; the time then runs from
	// the first request to the final response's first byte.
	FollowRedirect bool
	// ProxyCountry routes the requests through the proxy configured for
	// that country code. Empty means direct.
	ProxyCountry string
}

// TTFBResult is a time to first byte. TTFB is the API's data; the other
// fields feed its meta.
type TTFBResult struct {
	// TTFB is in milliseconds, from the start of the first request (DNS
	// included, on a fresh connection) to the first byte of the final
	// response.
	TTFB float64
	RequestInfo
}

// TTFB measures the time to first byte of rawURL on a fresh connection.
// Errors: CodeInvalidURL, CodeProxyCountryUnsupported,
// CodeTargetNotAllowed (the target or a redirect it follows is refused),
// CodeUnableToConnect (not resolved, refused, timed out, or a redirect
// loop), CodeTTFBFailed.
func (c *Client) TTFB(ctx context.Context, rawURL string, opts TTFBOptions) (*TTFBResult, error) {
	t, proxy, err := c.httpTarget(rawURL, opts.ProxyCountry)
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	m, err := c.measure(ctx, t.URL, proxy, httpprobe.MeasureOptions{Follow: opts.FollowRedirect, SkipBody: true})
	if err != nil {
		return nil, mapProbeError(err, CodeTTFBFailed)
	}
	return &TTFBResult{
		TTFB:        millis(m.TTFB),
		RequestInfo: RequestInfo{URL: t.URL.String(), RedirectedURL: m.URL, FollowRedirect: opts.FollowRedirect, ProxyCountry: opts.ProxyCountry},
	}, nil
}

// TTFB calls Client.TTFB on the default client.
func TTFB(ctx context.Context, rawURL string, opts TTFBOptions) (*TTFBResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).TTFB)
}
