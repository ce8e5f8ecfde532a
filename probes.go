package sitediag

import (
	"context"
	"math"
	"net/url"
	"time"

	"github.com/sitediag/sitediag/internal/guard"
	"github.com/sitediag/sitediag/net/httpprobe"
)

// ProtocolSupport says which HTTP versions a site speaks; see
// HTTPProtocol.
type ProtocolSupport = httpprobe.ProtocolSupport

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
