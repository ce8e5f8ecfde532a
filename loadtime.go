package sitediag

import (
	"context"
	"net/http"
	"sort"
	"strings"

	"github.com/sitediag/sitediag/net/httpprobe"
)

// LoadTimeOptions are the options of LoadTime. The zero value measures
// the first response, without following redirects.
type LoadTimeOptions struct {
	RequestOptions `api:"followRedirect=false"`
}

// LoadTimeResult is how long a page took to load, phase by phase, in
// milliseconds. The tagged fields are the API's data; the others feed its
// meta. DNS, Connect, TLS, Send and Wait are the final request's and add
// up to TTFB minus RedirectDuration; TTFB plus Download is Total.
type LoadTimeResult struct {
	DNS          float64 `json:"dns"`
	Connect      float64 `json:"connect"`
	TLS          float64 `json:"tls"`
	Send         float64 `json:"send"`
	Wait         float64 `json:"wait"`
	Total        float64 `json:"total"`
	StatusCode   int     `json:"statusCode"`
	ReasonPhrase string  `json:"reasonPhrase"`
	// Timings repeats the phases with the time to first byte, the
	// download and the redirects.
	Timings LoadTimings `json:"timings"`
	Network LoadNetwork `json:"network"`
	// Headers are the final response's, names in lower case; repeated
	// headers are joined with ", ", except set-cookie, joined with "\n".
	Headers map[string]string `json:"headers"`
	// ProtocolSupport are the HTTP versions of the final URL (see
	// HTTPProtocol).
	ProtocolSupport ProtocolSupport `json:"protocolSupport"`
	RequestInfo
}

// LoadTimings are the phases in milliseconds.
type LoadTimings struct {
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	TLS     float64 `json:"tls"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	// TTFB runs from the first request's start to the final response's
	// first byte.
	TTFB float64 `json:"ttfb"`
	// Download is the final body's transfer.
	Download float64 `json:"download"`
	Total    float64 `json:"total"`
	// RedirectDuration is the time spent on redirects before the final
	// request; 0 when none were followed.
	RedirectDuration float64 `json:"redirectDuration"`
}

// LoadNetwork describes the final request's connection.
type LoadNetwork struct {
	// Protocol is the response's, such as "HTTP/1.1" or "HTTP/2.0".
	Protocol string `json:"protocol"`
	// RemoteIP is the target's address (also through a proxy).
	RemoteIP string `json:"remoteIp"`
	// BytesRead is the body's size as transferred (compressed when the
	// server compressed it), up to the 10 MiB cap.
	BytesRead int64 `json:"bytesRead"`
}

// LoadTime times a GET of rawURL on a fresh connection, phase by phase
// (DNS, connect, TLS, send, wait, download), and probes the final URL's
// HTTP versions. Errors: CodeInvalidURL, CodeProxyCountryUnsupported,
// CodeTargetNotAllowed, CodeUnableToConnect (not resolved, refused,
// timed out, or a redirect loop), CodeLoadTimeFailed.
func (c *Client) LoadTime(ctx context.Context, rawURL string, opts LoadTimeOptions) (*LoadTimeResult, error) {
	return runHTTP(ctx, c, rawURL, &opts, &opts.RequestOptions, httpOp{name: "LoadTime", failed: CodeLoadTimeFailed}, func(ctx context.Context, r *httpRequest) (*LoadTimeResult, error) {
		m, err := c.measure(ctx, r.target.URL, r.proxy, httpprobe.MeasureOptions{Follow: r.info.Settings.FollowRedirect.Bool()})
		if err != nil {
			return nil, err
		}
		r.info.RedirectedURL = m.URL
		support, err := c.protocolsAt(ctx, r, m.Header.Values("Alt-Svc"))
		if err != nil {
			return nil, err
		}
		return loadTimeResult(m, support, r.info), nil
	})
}

// loadTimeResult reports measurement m.
func loadTimeResult(m *httpprobe.Measurement, support *ProtocolSupport, info RequestInfo) *LoadTimeResult {
	p := m.Phases
	timings := LoadTimings{
		DNS: millis(p.DNS), Connect: millis(p.Connect), TLS: millis(p.TLS), Send: millis(p.Send), Wait: millis(p.Wait),
		TTFB: millis(m.TTFB), Download: millis(p.Download), Total: millis(m.Total), RedirectDuration: millis(m.Redirect),
	}
	return &LoadTimeResult{
		DNS: timings.DNS, Connect: timings.Connect, TLS: timings.TLS, Send: timings.Send, Wait: timings.Wait, Total: timings.Total,
		StatusCode:      m.StatusCode,
		ReasonPhrase:    m.ReasonPhrase,
		Timings:         timings,
		Network:         LoadNetwork{Protocol: m.Protocol, RemoteIP: m.RemoteIP, BytesRead: m.BytesRead},
		Headers:         joinHeaders(m.Header),
		ProtocolSupport: *support,
		RequestInfo:     info,
	}
}

// joinHeaders flattens h into lower-case names; repeated values are
// joined with ", ", set-cookie's with a newline.
func joinHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		lower := strings.ToLower(name)
		sep := ", "
		if lower == "set-cookie" {
			sep = "\n"
		}
		if prev, ok := out[lower]; ok {
			out[lower] = prev + sep + strings.Join(h[name], sep)
			continue
		}
		out[lower] = strings.Join(h[name], sep)
	}
	return out
}

// LoadTime calls Client.LoadTime on the default client.
func LoadTime(ctx context.Context, rawURL string, opts LoadTimeOptions) (*LoadTimeResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).LoadTime)
}
