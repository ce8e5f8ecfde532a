package guard

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/sitediag/sitediag/internal/tracing"
	"github.com/sitediag/sitediag/net/netx"
)

// Limits of the HTTP transport every tool builds on.
const (
	tlsHandshakeTimeout   = 10 * time.Second
	responseHeaderTimeout = 15 * time.Second
	maxResponseHeaderSize = 64 << 10
	// DefaultMaxBodyBytes caps a response body after decompression.
	DefaultMaxBodyBytes = 10 << 20
)

// HTTPOptions shape an HTTP client. The zero value is the default.
type HTTPOptions struct {
	// MaxBodyBytes caps each response body after decompression. If zero,
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// CheckRedirect is the client's redirect policy. If nil, redirects
	// are not followed: the caller walks them (http.ErrUseLastResponse).
	CheckRedirect func(req *http.Request, via []*http.Request) error
	// WrapConn, if set, wraps every connection after its TLS handshake,
	// so the caller sees the plaintext bytes (to read headers in the order
	// received, say). It limits the client to HTTP/1.1 and one request
	// per connection.
	WrapConn func(net.Conn) net.Conn
	// Proxy, if set, is the operator's proxy (http://, https://,
	// socks5://) every connection goes through; targets are still
	// resolved and checked first (see Guard.Dialer). If nil, direct.
	Proxy *url.URL
}

// NewHTTPClient returns a client whose every connection, redirect hops
// included, goes through the guard's dialer (and opts.Proxy, if set). Each job gets its own client,
// so no connection is reused across jobs; call CloseIdleConnections when
// the job ends. Certificates are not verified: a diagnosis reports on a
// bad certificate rather than stopping at it. The request's context is the
// total deadline.
func (g *Guard) NewHTTPClient(opts HTTPOptions) *http.Client {
	limit := opts.MaxBodyBytes
	if limit <= 0 {
		limit = DefaultMaxBodyBytes
	}
	check := opts.CheckRedirect
	if check == nil {
		check = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	dial := g.Dialer(opts.Proxy)
	return &http.Client{
		Transport:     &cappedTransport{limit: limit, newTransport: func(secure bool) *http.Transport { return newTransport(dial, opts.WrapConn, secure) }},
		CheckRedirect: check,
	}
}

// newTransport returns a transport that connects with dial, wrapping
// each connection with wrap when it is set. For https:// requests (secure),
// it speaks HTTP/2 where the server offers it, unless wrap is set; for
// http:// ones it is set up for HTTP/1.1 alone, which is all a transport
// speaks over plain TCP, so it makes no TLS or HTTP/2 configuration.
func newTransport(dial netx.DialFunc, wrap func(net.Conn) net.Conn, secure bool) *http.Transport {
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            dial,
		TLSHandshakeTimeout:    tlsHandshakeTimeout,
		ResponseHeaderTimeout:  responseHeaderTimeout,
		MaxResponseHeaderBytes: maxResponseHeaderSize,
	}
	switch {
	case !secure:
		transport.TLSNextProto = noNextProto()
	case wrap == nil:
		transport.TLSClientConfig = netx.TLSConfig("")
		transport.ForceAttemptHTTP2 = true
	default:
		transport.TLSClientConfig = netx.TLSConfig("")
		transport.TLSNextProto = noNextProto()
	}
	if wrap != nil {
		transport.DisableKeepAlives = true
		transport.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return wrap(conn), nil
		}
		transport.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			host, _, _ := net.SplitHostPort(addr)
			tconn := tls.Client(conn, netx.TLSConfig(host, "http/1.1"))
			if err := handshake(ctx, tconn); err != nil {
				conn.Close()
				return nil, err
			}
			return wrap(tconn), nil
		}
	}
	return transport
}

// noNextProto is a transport's TLSNextProto that turns HTTP/2 off.
func noNextProto() map[string]func(string, *tls.Conn) http.RoundTripper {
	return map[string]func(string, *tls.Conn) http.RoundTripper{}
}

func handshake(ctx context.Context, conn *tls.Conn) error {
	ctx, cancel := context.WithTimeout(ctx, tlsHandshakeTimeout)
	defer cancel()
	return tracing.Handshake(ctx, conn)
}

// cappedTransport caps response bodies; its transports have already
// decompressed them, so the cap is on what the caller reads. It has a
// transport for http:// requests and one for the others (https://),
// each made on the first request it carries: a job that never meets TLS
// sets none of it up.
type cappedTransport struct {
	limit        int64
	newTransport func(secure bool) *http.Transport
	mu           sync.Mutex
	plain        *http.Transport
	secure       *http.Transport
}

// transport returns the transport for req, made now if it is the first.
func (t *cappedTransport) transport(req *http.Request) *http.Transport {
	t.mu.Lock()
	defer t.mu.Unlock()
	tr, secure := &t.secure, true
	if req.URL.Scheme == "http" {
		tr, secure = &t.plain, false
	}
	if *tr == nil {
		*tr = t.newTransport(secure)
	}
	return *tr
}

// RoundTrip also puts the TLS handshakes the transport makes for req in
// "tls" spans (see tracing.WithHTTPTrace).
func (t *cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if ctx := tracing.WithHTTPTrace(req.Context()); ctx != req.Context() {
		req = req.WithContext(ctx)
	}
	resp, err := t.transport(req).RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: t.limit}
	return resp, nil
}

// CloseIdleConnections closes the idle connections of both transports.
func (t *cappedTransport) CloseIdleConnections() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, tr := range []*http.Transport{t.plain, t.secure} {
		if tr != nil {
			tr.CloseIdleConnections()
		}
	}
}

type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// Probe one byte to tell "exactly at the cap" from "over it".
		var one [1]byte
		if n, _ := b.ReadCloser.Read(one[:]); n > 0 {
			return 0, netx.ErrBodyTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}
