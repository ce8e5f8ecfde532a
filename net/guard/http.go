package guard

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/url"
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
	dial := g.Dialer(opts.Proxy)
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            dial,
		TLSClientConfig:        netx.TLSConfig(""),
		TLSHandshakeTimeout:    tlsHandshakeTimeout,
		ResponseHeaderTimeout:  responseHeaderTimeout,
		MaxResponseHeaderBytes: maxResponseHeaderSize,
		ForceAttemptHTTP2:      true,
	}
	if opts.WrapConn != nil {
		wrap := opts.WrapConn
		transport.ForceAttemptHTTP2 = false
		transport.DisableKeepAlives = true
		transport.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
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
	limit := opts.MaxBodyBytes
	if limit <= 0 {
		limit = DefaultMaxBodyBytes
	}
	check := opts.CheckRedirect
	if check == nil {
		check = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	return &http.Client{
		Transport:     &cappedTransport{Transport: transport, limit: limit},
		CheckRedirect: check,
	}
}

func handshake(ctx context.Context, conn *tls.Conn) error {
	ctx, cancel := context.WithTimeout(ctx, tlsHandshakeTimeout)
	defer cancel()
	return tracing.Handshake(ctx, conn)
}

// cappedTransport caps response bodies; the embedded transport has already
// decompressed them, so the cap is on what the caller reads.
type cappedTransport struct {
	*http.Transport
	limit int64
}

// RoundTrip also puts the TLS handshakes the transport makes for req in
// "tls" spans (see tracing.WithHTTPTrace).
func (t *cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if ctx := tracing.WithHTTPTrace(req.Context()); ctx != req.Context() {
		req = req.WithContext(ctx)
	}
	resp, err := t.Transport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: t.limit}
	return resp, nil
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
