package sitediag

import (
	"context"

	"github.com/sitediag/sitediag/net/httpprobe"
)

// TTFBOptions are the options of TTFB. The zero value measures the first
// response, without following redirects.
type TTFBOptions struct {
	RequestOptions `api:"followRedirect=false"`
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
	return runHTTP(ctx, c, rawURL, &opts, &opts.RequestOptions, httpOp{name: "TTFB", failed: CodeTTFBFailed}, func(ctx context.Context, r *httpRequest) (*TTFBResult, error) {
		m, err := c.measure(ctx, r.target.URL, r.proxy, httpprobe.MeasureOptions{Follow: r.info.Settings.FollowRedirect.Bool(), SkipBody: true})
		if err != nil {
			return nil, err
		}
		r.info.RedirectedURL = m.URL
		return &TTFBResult{TTFB: millis(m.TTFB), RequestInfo: r.info}, nil
	})
}

// TTFB calls Client.TTFB on the default client.
func TTFB(ctx context.Context, rawURL string, opts TTFBOptions) (*TTFBResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).TTFB)
}
