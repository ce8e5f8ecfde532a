package sitediag

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/httpprobe"
	"github.com/sitediag/sitediag/net/netx"
)

// ProtocolSupport says which HTTP versions a site speaks; see
// HTTPProtocol.
type ProtocolSupport = httpprobe.ProtocolSupport

// recordingClient returns the client factory of httpprobe's header walks
// (a guarded client through proxy, with the walk's connection wrapper)
// and a function that closes what it built.
func (c *Client) recordingClient(proxy *url.URL) (netx.ClientFunc, func()) {
	var client *http.Client
	newClient := func(wrap func(net.Conn) net.Conn) netx.Doer {
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
	newClient := func(wrap func(net.Conn) net.Conn) netx.Doer {
		return c.guard.NewHTTPClient(guard.HTTPOptions{WrapConn: wrap, Proxy: proxy})
	}
	return httpprobe.Measure(ctx, newClient, u, opts)
}

// protocolsAt probes the HTTP versions of r's RedirectedURL through r's
// proxy; altSvc are the Alt-Svc values already seen there. HTTP/3 needs
// UDP, which a proxy does not carry: through one, it is judged from the
// Alt-Svc advertisement alone.
func (c *Client) protocolsAt(ctx context.Context, r *httpRequest, altSvc []string) (*ProtocolSupport, error) {
	u, err := url.Parse(r.info.RedirectedURL)
	if err != nil {
		return nil, fmt.Errorf("sitediag: the final URL does not parse: %w", err)
	}
	var udp httpprobe.UDP
	if r.proxy == nil {
		udp = c.guard
	}
	return httpprobe.Protocols(ctx, c.guard.Dialer(r.proxy), udp, u, httpprobe.ProtocolOptions{AltSvc: altSvc})
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}
