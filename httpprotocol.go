package sitediag

import (
	"context"
	"net/http"
	"net/url"

	"github.com/sitediag/sitediag/internal/guard"
	"github.com/sitediag/sitediag/net/httpprobe"
)

// HTTPProtocolOptions are the options of HTTPProtocol. The zero value
// probes rawURL itself, without following redirects.
type HTTPProtocolOptions struct {
	// FollowRedirect follows up to 10 redirects first and probes the
	// final URL.
	FollowRedirect bool
	// ProxyCountry routes the probes through the proxy configured for
	// that country code. A proxy carries TCP only, so HTTP/3 is then
	// judged from the Alt-Svc advertisement alone. Empty means direct.
	ProxyCountry string
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
	t, proxy, err := c.httpTarget(rawURL, opts.ProxyCountry)
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	client := c.guard.NewHTTPClient(guard.HTTPOptions{Proxy: proxy})
	defer client.CloseIdleConnections()
	last, err := httpprobe.Status(ctx, client, http.MethodGet, t.URL, opts.FollowRedirect)
	if err != nil {
		return nil, mapProbeError(err, CodeHTTPProtocolFailed)
	}
	final, err := url.Parse(last.URL)
	if err != nil {
		return nil, NewError(CodeHTTPProtocolFailed, err, "the final URL does not parse")
	}
	support, err := c.protocols(ctx, final, proxy, nil)
	if err != nil {
		return nil, mapProbeError(err, CodeHTTPProtocolFailed)
	}
	return &HTTPProtocolResult{
		ProtocolSupport: *support,
		RequestInfo:     RequestInfo{URL: t.URL.String(), RedirectedURL: last.URL, FollowRedirect: opts.FollowRedirect, ProxyCountry: opts.ProxyCountry},
	}, nil
}

// HTTPProtocol calls Client.HTTPProtocol on the default client.
func HTTPProtocol(ctx context.Context, rawURL string, opts HTTPProtocolOptions) (*HTTPProtocolResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).HTTPProtocol)
}
