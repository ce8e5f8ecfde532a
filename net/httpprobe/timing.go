package httpprobe

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync"
	"time"

	"github.com/sitediag/sitediag/net/netx"
)

// Phases are the parts of one request, in order. DNS, Connect, TLS, Send
// and Wait add up to the request's time to first byte; Download follows.
// Connect runs from the request's start (after DNS) to a connection
// ready for HTTP, TLS excluded: it includes any proxy's tunnel set-up.
type Phases struct {
	DNS      time.Duration
	Connect  time.Duration
	TLS      time.Duration
	Send     time.Duration
	Wait     time.Duration
	Download time.Duration
}

// Measurement is what Measure saw of a page load.
type Measurement struct {
	// Hops are the responses in order, redirects first and the measured
	// one last.
	Hops []Hop
	// Phases are the final request's.
	Phases Phases
	// Redirect is the time spent on redirects: from the first request's
	// start to the final request's start; zero when nothing redirected.
	Redirect time.Duration
	// TTFB runs from the first request's start to the final response's
	// first byte, so it includes Redirect.
	TTFB time.Duration
	// Total runs from the first request's start to the end of the final
	// body (to its head when the body was skipped).
	Total time.Duration
	// StatusCode and ReasonPhrase are the final response's.
	StatusCode   int
	ReasonPhrase string
	// URL is the final request's.
	URL string
	// Protocol is the final response's, such as "HTTP/1.1" or "HTTP/2.0".
	Protocol string
	// RemoteIP is the address the final request was sent to (the
	// target's, also through a proxy).
	RemoteIP string
	// BytesRead is the size of the final body as transferred (content
	// coding not undone), up to the client's body cap.
	BytesRead int64
	// Header is the final response's header.
	Header http.Header
}

// MeasureOptions shape Measure. The zero value measures one request and
// reads its body.
type MeasureOptions struct {
	// Follow follows up to MaxRedirects redirects, each measured on its
	// own fresh client; Redirect is their time.
	Follow bool
	// SkipBody stops at the final response's head: Download and
	// BytesRead stay zero.
	SkipBody bool
}

// Measure times a GET of target, phase by phase, with httptrace. Every
// request gets a fresh client from newClient, so each one opens its own
// connection and pays for DNS, connect and TLS; a client that has a
// CloseIdleConnections method is closed after its request. The body is
// read as transferred (the request asks for gzip, deflate or br itself,
// so nothing is decoded) up to the client's cap; a body over the cap
// ends the download there.
//
// A loop or more than MaxRedirects redirects is ErrTooManyRedirects; a
// request that got no response is a *FetchError.
func Measure(ctx context.Context, newClient netx.ClientFunc, target *url.URL, opts MeasureOptions) (*Measurement, error) {
	var timings []milestones
	var last *http.Response
	var bytesRead int64
	measure := func(ctx context.Context, u *url.URL) (Hop, *url.URL, error) {
		client := newClient(nil)
		if c, ok := client.(interface{ CloseIdleConnections() }); ok {
			defer c.CloseIdleConnections()
		}
		tr := &tracer{m: milestones{start: time.Now()}}
		resp, err := send(httptrace.WithClientTrace(ctx, tr.clientTrace()), client, http.MethodGet, u,
			http.Header{"Accept-Encoding": {"gzip, deflate, br"}})
		if err != nil {
			return Hop{}, nil, err
		}
		defer resp.Body.Close()
		hop, loc := hopOf(u, resp, nil)
		final := loc == nil || !opts.Follow
		n := int64(0)
		if final && !opts.SkipBody { // a redirect's body is not read
			n, err = io.Copy(io.Discard, resp.Body)
			if err != nil && !errors.Is(err, netx.ErrBodyTooLarge) {
				return Hop{}, nil, err
			}
		}
		timings = append(timings, tr.finish())
		last, bytesRead = resp, n
		return hop, loc, nil
	}
	hops, err := walk(ctx, target, opts.Follow, measure)
	if err != nil {
		return nil, err
	}
	first, final := timings[0], timings[len(timings)-1]
	m := &Measurement{
		Hops:         hops,
		Phases:       final.phases(),
		Redirect:     final.start.Sub(first.start),
		TTFB:         final.firstByte.Sub(first.start),
		Total:        final.end.Sub(first.start),
		StatusCode:   last.StatusCode,
		ReasonPhrase: reasonPhrase(last),
		URL:          hops[len(hops)-1].URL,
		Protocol:     last.Proto,
		RemoteIP:     final.remoteIP(),
		BytesRead:    bytesRead,
		Header:       last.Header,
	}
	return m, nil
}

// tracer records the milestones of one request. Hooks can run on the
// transport's goroutines, hence the lock.
type tracer struct {
	mu sync.Mutex
	m  milestones
}

// milestones are the moments of one request.
type milestones struct {
	start, dnsStart, dnsDone          time.Time
	tlsStart, tlsDone, gotConn, wrote time.Time
	firstByte, end                    time.Time
	remote                            net.Addr
}

func (t *tracer) clientTrace() *httptrace.ClientTrace {
	at := func(field *time.Time) {
		t.mu.Lock()
		*field = time.Now()
		t.mu.Unlock()
	}
	return &httptrace.ClientTrace{
		DNSStart:          func(httptrace.DNSStartInfo) { at(&t.m.dnsStart) },
		DNSDone:           func(httptrace.DNSDoneInfo) { at(&t.m.dnsDone) },
		TLSHandshakeStart: func() { at(&t.m.tlsStart) },
		TLSHandshakeDone:  func(tls.ConnectionState, error) { at(&t.m.tlsDone) },
		GotConn: func(info httptrace.GotConnInfo) {
			at(&t.m.gotConn)
			t.mu.Lock()
			t.m.remote = info.Conn.RemoteAddr()
			t.mu.Unlock()
		},
		WroteRequest:         func(httptrace.WroteRequestInfo) { at(&t.m.wrote) },
		GotFirstResponseByte: func() { at(&t.m.firstByte) },
	}
}

// finish notes the end and returns the milestones, filling in those a
// transport did not report so that no phase goes negative.
func (t *tracer) finish() milestones {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.m
	m.end = time.Now()
	if m.firstByte.IsZero() {
		m.firstByte = m.end
	}
	if m.gotConn.IsZero() {
		m.gotConn = m.start
	}
	if m.wrote.IsZero() {
		m.wrote = m.gotConn
	}
	return m
}

func (m *milestones) phases() Phases {
	var p Phases
	if !m.dnsStart.IsZero() && !m.dnsDone.IsZero() {
		p.DNS = m.dnsDone.Sub(m.dnsStart)
	}
	if !m.tlsStart.IsZero() && !m.tlsDone.IsZero() {
		p.TLS = m.tlsDone.Sub(m.tlsStart)
	}
	p.Connect = max(m.gotConn.Sub(m.start)-p.DNS-p.TLS, 0)
	p.Send = max(m.wrote.Sub(m.gotConn), 0)
	p.Wait = max(m.firstByte.Sub(m.wrote), 0)
	p.Download = max(m.end.Sub(m.firstByte), 0)
	return p
}

func (m *milestones) remoteIP() string {
	if m.remote == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(m.remote.String())
	if err != nil {
		return m.remote.String()
	}
	return host
}
