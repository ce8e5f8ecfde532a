package sitediag

import (
	"context"

	"github.com/sitediag/sitediag/net/httpprobe"
)

// HTTPHeaderOptions are the options of HTTPHeader. The zero value reports
// the first response, without following redirects.
type HTTPHeaderOptions struct {
	RequestOptions `api:"followRedirect=false"`
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
	return runHTTP(ctx, c, rawURL, &opts, &opts.RequestOptions, httpOp{name: "HTTPHeader", failed: CodeHTTPHeaderFailed}, func(ctx context.Context, r *httpRequest) (*HTTPHeaderResult, error) {
		newClient, closeClient := c.recordingClient(r.proxy)
		defer closeClient()
		hops, err := httpprobe.Headers(ctx, newClient, r.target.URL, r.info.Settings.FollowRedirect.Bool())
		if err != nil {
			return nil, err
		}
		last := hops[len(hops)-1]
		headers := last.Headers
		if headers == nil {
			headers = []Header{}
		}
		r.info.RedirectedURL = last.URL
		return &HTTPHeaderResult{Headers: headers, StatusCode: last.Status, RequestInfo: r.info}, nil
	})
}

// HTTPHeader calls Client.HTTPHeader on the default client.
func HTTPHeader(ctx context.Context, rawURL string, opts HTTPHeaderOptions) (*HTTPHeaderResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).HTTPHeader)
}
