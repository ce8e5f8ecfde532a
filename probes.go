package sitediag

import (
	"context"
	"math"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/sitediag/sitediag/internal/guard"
	"github.com/sitediag/sitediag/internal/target"
	"github.com/sitediag/sitediag/net/httpprobe"
)

// ProtocolSupport says which HTTP versions a site speaks; see
// HTTPProtocol.
type ProtocolSupport = httpprobe.ProtocolSupport

// RequestInfo is the part of an HTTP-level result that describes the
// request rather than the site; the API reports it in meta.
type RequestInfo struct {
	// URL is the URL asked for, as normalised.
	URL string `json:"-"`
	// RedirectedURL is the URL of the response reported: the final one
	// when redirects were followed, else URL.
	RedirectedURL string `json:"-"`
	// FollowRedirect says whether redirects were followed.
	FollowRedirect bool `json:"-"`
	// ProxyCountry echoes the option.
	ProxyCountry string `json:"-"`
}

// httpTarget parses an HTTP-level operation's url and finds the proxy
// of its proxyCountry (nil for none).
func (c *Client) httpTarget(rawURL, country string) (*target.Target, *url.URL, error) {
	t, err := parseURL(rawURL)
	if err != nil {
		return nil, nil, err
	}
	proxy, err := c.proxyFor(country)
	if err != nil {
		return nil, nil, err
	}
	return t, proxy, nil
}

// recordingClient returns the client factory of httpprobe's header walks
// (a guarded client through proxy, with the walk's connection wrapper)
// and a function that closes what it built.
func (c *Client) recordingClient(proxy *url.URL) (func(wrap func(net.Conn) net.Conn) httpprobe.Doer, func()) {
	var client *http.Client
	newClient := func(wrap func(net.Conn) net.Conn) httpprobe.Doer {
		client = c.guard.NewHTTPClient(guard.HTTPOptions{WrapConn: wrap, Proxy: proxy})
		return client
	}
	return newClient, func() {
		if client != nil {
			client.CloseIdleConnections()
		}
	}
}

// measure times a GET of u (and its redirects when follow is set), each
// request on a fresh guarded client through proxy.
func (c *Client) measure(ctx context.Context, u *url.URL, proxy *url.URL, opts httpprobe.MeasureOptions) (*httpprobe.Measurement, error) {
	newClient := func() httpprobe.Doer { return c.guard.NewHTTPClient(guard.HTTPOptions{Proxy: proxy}) }
	return httpprobe.Measure(ctx, newClient, u, opts)
}

// protocols probes the HTTP versions of u through proxy. HTTP/3 needs
// UDP, which a proxy does not carry: through one, it is judged from the
// Alt-Svc advertisement alone.
func (c *Client) protocols(ctx context.Context, u *url.URL, proxy *url.URL, altSvc []string) (*ProtocolSupport, error) {
	var udp httpprobe.UDP
	if proxy == nil {
		udp = c.guard
	}
	return httpprobe.Protocols(ctx, c.guard.Dialer(proxy), udp, u, httpprobe.ProtocolOptions{AltSvc: altSvc})
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}
