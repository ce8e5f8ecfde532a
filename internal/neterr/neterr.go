// Package neterr says in a few words, for people to read, why a network
// operation failed: "name not resolved", "connection refused", "timed
// out", …. Every probe that reports a failure as text uses it, so the
// same cause reads the same everywhere.
package neterr

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"syscall"

	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/netx"
)

// Why says in a few words why a request got no response, for people to
// read: "name not resolved", "connection refused", "timed out", ….
func Why(err error) string {
	var resolveErr *guard.ResolveError
	var netErr net.Error
	var recordErr tls.RecordHeaderError
	var alert tls.AlertError
	var proxyErr *netx.ProxyError
	var tunnelErr *guard.TunnelError
	switch {
	case errors.As(err, &proxyErr):
		return "proxy unreachable"
	case errors.As(err, &tunnelErr):
		return "proxy could not connect"
	case errors.As(err, &resolveErr):
		return whyUnresolved(resolveErr)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "host unreachable"
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		// A prohibit route, a broadcast address, a local firewall.
		return "not permitted"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timed out"
	case errors.As(err, &recordErr), errors.As(err, &alert):
		return "TLS handshake failed"
	case errors.Is(err, netx.ErrBodyTooLarge):
		return "response too large"
	}
	return "connection failed"
}

// whyUnresolved tells a name that does not resolve from DNS servers
// that did not answer for it.
func whyUnresolved(err *guard.ResolveError) string {
	var rcodeErr *dns.RcodeError
	switch {
	case errors.Is(err, dns.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return "DNS servers did not answer in time"
	case errors.Is(err, dns.ErrNoAnswer):
		return "DNS servers did not answer"
	case errors.As(err, &rcodeErr):
		return "DNS server answered " + rcodeErr.Rcode
	}
	return "name not resolved"
}
