package sitediag

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/sitediag/sitediag/internal/neterr"
	"github.com/sitediag/sitediag/internal/target"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/netx"
	"github.com/sitediag/sitediag/option"
	"github.com/sitediag/sitediag/tls"
)

// TLSScanOptions are the options of TLSScan and the API's body of
// /tlsscan. The zero value is ready to use.
type TLSScanOptions struct {
	// ProbeTimeout, in seconds, bounds each handshake probe (connect,
	// hello, answer):
	// raise it for a server slower than that to answer. Zero means
	// tls.DefaultProbeTimeout (5 s).
	ProbeTimeout Seconds `json:"probeTimeout" api:"min=0,max=30"`
}

// TLSScanResult is the outcome of a TLS scan. Its JSON is the API's
// data: protocols and certificate as the spec gives them, then cipher
// suites per protocol, vulnerabilities, advisory signals, and whether
// the operation's deadline cut the scan short (partial).
type TLSScanResult struct {
	tls.Result
	// Host is the target's host, with a port when not 443.
	Host string `json:"-"`
	// Settings are the options the scan ran with, defaults filled in.
	Settings TLSScanOptions `json:"-"`
}

// TLSScan scans the TLS configuration of the server at rawURL's host and
// port (443 when the URL gives none, whatever its scheme): which
// versions from SSL 2.0 to TLS 1.3 it negotiates, by raw handshakes;
// the cipher suites of each; the vulnerabilities they imply; and its
// certificate, verified against Config.RootCAs at Config.Now. An
// expired, self-signed or mismatched certificate is a finding, not an
// error. A name is sent as SNI; an IP literal is not. When the
// operation's deadline comes first, what was found by then is returned,
// with Partial set and Unfinished saying what was left.
//
// Errors: CodeInvalidURL, CodeInvalidParameters (a ProbeTimeout out of
// range), CodeTargetNotAllowed, CodeTLSHandshakeFailed (the name does
// not resolve, the port refuses, or no version at all can be
// negotiated), CodeTLSScanFailed (the deadline came before any version
// was found).
func (c *Client) TLSScan(ctx context.Context, rawURL string, opts TLSScanOptions) (*TLSScanResult, error) {
	open := func() (*target.Target, error) {
		if opts.ProbeTimeout == 0 {
			opts.ProbeTimeout = option.SecondsOf(tls.DefaultProbeTimeout)
		}
		return tlsTarget(rawURL)
	}
	scan := func(ctx context.Context, t *target.Target) (*TLSScanResult, error) {
		port := t.Port
		addrs, err := c.guard.Resolve(ctx, t.Host)
		if err != nil {
			return nil, err
		}
		// Every probe connects to the addresses resolved here, whatever it asks for.
		pinned := func(ctx context.Context, network, _ string) (net.Conn, error) {
			return c.guard.DialAddrs(ctx, network, addrs, port)
		}
		res, err := tls.Scan(ctx, pinned, net.JoinHostPort(t.Host, strconv.Itoa(int(port))), tls.Options{Roots: c.cfg.RootCAs, Now: c.cfg.Now, ProbeTimeout: opts.ProbeTimeout.Duration()})
		if err != nil {
			return nil, err
		}
		return &TLSScanResult{Result: *res, Host: t.Display(), Settings: opts}, nil
	}
	return runOp(ctx, c, "TLSScan", rawURL, &opts, open, scan, func(err error) error { return mapTLSError(err) })
}

// tlsTarget parses rawURL for a TLS scan: its host, and its port or
// 443 when it has none, whatever the scheme. Display then shows the port
// unless it is 443.
func tlsTarget(rawURL string) (*target.Target, error) {
	t, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if u, err := url.Parse(strings.TrimSpace(rawURL)); err == nil && u.Port() == "" {
		t.Port = 443
	}
	t.Scheme = "https"
	return t, nil
}

// mapTLSError maps what resolution and the scan return to the
// documented codes.
func mapTLSError(err error) *Error {
	var resolveErr *guard.ResolveError
	var noProtocol *tls.NoProtocolError
	switch {
	case errors.Is(err, netx.ErrNotAllowed):
		return notAllowed(err)
	case errors.As(err, &noProtocol): // before the deadline: it may wrap a dial's timeout
		return NewError(CodeTLSHandshakeFailed, err, "unable to establish a TLS connection with the target server: %s", noProtocol.Reason)
	case errors.Is(err, tls.ErrNoProtocol):
		return NewError(CodeTLSHandshakeFailed, err, "unable to establish a TLS connection with the target server")
	case errors.Is(err, context.DeadlineExceeded):
		return NewError(CodeTLSScanFailed, err, "the scan found no TLS version before its deadline")
	case errors.As(err, &resolveErr):
		return NewError(CodeTLSHandshakeFailed, err, "the host name could not be resolved: %s", neterr.Why(err))
	}
	return NewError(CodeTLSScanFailed, err, "unable to complete the TLS scan")
}

// TLSScan calls Client.TLSScan on the default client.
func TLSScan(ctx context.Context, rawURL string, opts TLSScanOptions) (*TLSScanResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).TLSScan)
}
