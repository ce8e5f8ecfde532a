package sitediag

import (
	"context"
	"net/http"

	"github.com/sitediag/sitediag/net/httpprobe"
)

// HTTPProtocolOptions are the options of HTTPProtocol. The zero value
// probes rawURL itself, without following redirects.
type HTTPProtocolOptions struct {
	// RequestOptions: through a proxy, which carries TCP only, HTTP/3 is
	// judged from the Alt-Svc advertisement alone.
	RequestOptions `api:"followRedirect=false"`
}

// HTTPProtocolResult says which HTTP versions a site speaks. The embedded
// ProtocolSupport is the API's data; the other fields feed its meta.
type HTTPProtocolResult struct {
	ProtocolSupport
	// RequestInfo's RedirectedURL is the URL probed.
	RequestInfo
}

// HTTPProtocol probes which HTTP versions rawURL's site speaks, each with
// a real, time-bounded exchange: HTTP/1.0 and HTTP/1.1 requests, HTTP/2
// by ALPN h2 (prior-knowledge h2c for http://), and HTTP/3 by the Alt-Svc
// advertisement followed by a QUIC handshake and one HTTP/3 request, over
// UDP checked by the same SSRF policy. Errors: CodeInvalidURL,
// CodeProxyCountryUnsupported, CodeTargetNotAllowed, CodeUnableToConnect
// (not resolved, refused, timed out, or a redirect loop),
// CodeHTTPProtocolFailed.
func (c *Client) HTTPProtocol(ctx context.Context, rawURL string, opts HTTPProtocolOptions) (*HTTPProtocolResult, error) {
	return runHTTP(ctx, c, rawURL, &opts, &opts.RequestOptions, httpOp{name: "HTTPProtocol", failed: CodeHTTPProtocolFailed}, func(ctx context.Context, r *httpRequest) (*HTTPProtocolResult, error) {
		client := c.client(r)
		defer client.CloseIdleConnections()
		last, err := httpprobe.Status(ctx, client, http.MethodGet, r.target.URL, r.info.Settings.FollowRedirect.Bool())
		if err != nil {
			return nil, err
		}
		r.info.RedirectedURL = last.URL
		support, err := c.protocolsAt(ctx, r, nil)
		if err != nil {
			return nil, err
		}
		return &HTTPProtocolResult{ProtocolSupport: *support, RequestInfo: r.info}, nil
	})
}

// HTTPProtocol calls Client.HTTPProtocol on the default client.
func HTTPProtocol(ctx context.Context, rawURL string, opts HTTPProtocolOptions) (*HTTPProtocolResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).HTTPProtocol)
}
