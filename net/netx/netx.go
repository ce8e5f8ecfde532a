// Package netx is the one seam between sitediag's mechanisms and the
// network: the shape of a dial, the shapes of an HTTP client, the
// filtering proxies a browser goes through, and the errors a network
// policy answers with.
//
// The mechanism packages (tls, net/ping, net/portscan, net/mtr,
// net/httpprobe, net/linkcheck, browser) reach targets only through
// what they are given in these shapes. sitediag's Client gives them its
// SSRF guard; an embedder may give them anything that applies its own
// policy, and errors.Is(err, ErrNotAllowed) tells a refusal from a
// failure whoever refused.
package netx

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/netip"
	"syscall"
)

// DialFunc connects to address ("host:port") over network ("tcp",
// "udp", …): the shape of net.Dialer.DialContext.
type DialFunc func(ctx context.Context, network, address string) (net.Conn, error)

// AllowFunc reports whether the policy allows sending to addr. The
// mechanisms that send packets themselves rather than dial (ICMP in ping
// and mtr) take one and refuse with ErrNotAllowed before anything leaves;
// guard.(*Guard).Allowed is sitediag's.
type AllowFunc func(addr netip.Addr) bool

// ControlFunc judges a socket about to connect to address (an IP
// literal and port, "192.0.2.1:443" or "[2001:db8::1]:80") over network
// ("tcp4", "tcp6"): the shape of net.Dialer.Control. A mechanism that
// opens sockets of its own calls it on each one after creating it and
// before connecting; an error (one wrapping ErrNotAllowed for a refused
// address) means the socket must not connect.
type ControlFunc func(network, address string, c syscall.RawConn) error

// ErrNotAllowed is what a connection refused by a network policy wraps
// (sitediag's SSRF policy: private, loopback, link-local and metadata
// addresses unless allowed).
var ErrNotAllowed = errors.New("netx: target not allowed")

// ErrBlocked is what a proxy's refusal of a host on its
// ProxyOptions.Block list wraps.
var ErrBlocked = errors.New("netx: host is on the block list")

// ErrBodyTooLarge is what reading a response body past the client's cap
// wraps.
var ErrBodyTooLarge = errors.New("netx: response body too large")

// ProxyError means the operator's proxy could not be used: it could not
// be reached, its TLS handshake failed, or it refused our credentials.
// The target was not judged; the fault is on the operator's side.
type ProxyError struct {
	// Proxy is the proxy's host:port, without credentials.
	Proxy string
	Err   error
}

func (e *ProxyError) Error() string { return "proxy " + e.Proxy + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *ProxyError) Unwrap() error { return e.Err }

// TLSConfig is the client TLS configuration every tool that reaches a
// target uses: certificates are not verified (tools report on a bad
// certificate rather than stop at it), SNI is sent only for names, and
// alpn are the protocols offered, if any.
func TLSConfig(host string, alpn ...string) *tls.Config {
	cfg := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // findings, not trust decisions
	if _, err := netip.ParseAddr(host); err != nil {
		cfg.ServerName = host
	}
	cfg.NextProtos = alpn
	return cfg
}
