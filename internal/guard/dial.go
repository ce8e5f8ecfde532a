package guard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http/httptrace"
	"net/netip"
	"syscall"
	"time"

	"github.com/sitediag/sitediag/internal/tracing"
	"github.com/sitediag/sitediag/net/netx"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// dialTimeout bounds one connection attempt to one address.
const dialTimeout = 10 * time.Second

// Resolver is what the guard needs from a resolver: the addresses of a
// name, from the operator's DNS servers.
type Resolver interface {
	LookupAddrs(ctx context.Context, host string) ([]netip.Addr, error)
}

// Guard resolves names with its resolver and connects only to addresses
// its policy allows. It is safe for concurrent use.
type Guard struct {
	policy   Policy
	refused  *refusals
	resolver Resolver
	dial     func(ctx context.Context, network, address string) (net.Conn, error)
}

// New returns a guard that resolves with resolver and applies policy.
func New(resolver Resolver, policy Policy) *Guard {
	g := &Guard{policy: policy, refused: &refusals{n: map[string]uint64{}}, resolver: resolver}
	d := &net.Dialer{Timeout: dialTimeout, Control: g.control}
	g.dial = d.DialContext
	return g
}

// Allowed reports whether the policy allows addr.
func (g *Guard) Allowed(addr netip.Addr) bool { return g.policy.Allowed(addr) }

// Resolve returns the allowed addresses of host (a name or an IP literal).
// When the name resolves but no address is allowed, the error is
// netx.ErrNotAllowed; a name that does not resolve gives a *ResolveError.
// A name's resolution is reported to the DNSStart and DNSDone hooks of
// an httptrace.ClientTrace in ctx, and every resolution is a "resolve"
// span under the span in ctx (see internal/tracing).
func (g *Guard) Resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	ctx, span := tracing.Start(ctx, tracing.SpanResolve, attribute.String("dns.question.name", host))
	var hooks *httptrace.ClientTrace
	if _, err := netip.ParseAddr(host); err != nil {
		hooks = httptrace.ContextClientTrace(ctx)
	}
	if hooks != nil && hooks.DNSStart != nil {
		hooks.DNSStart(httptrace.DNSStartInfo{Host: host})
	}
	allowed, answers, err := g.resolve(ctx, host)
	if hooks != nil && hooks.DNSDone != nil {
		info := httptrace.DNSDoneInfo{Err: err}
		for _, a := range allowed {
			info.Addrs = append(info.Addrs, net.IPAddr{IP: a.AsSlice()})
		}
		hooks.DNSDone(info)
	}
	if span.IsRecording() {
		span.SetAttributes(answerAttrs(answers, err)...)
	}
	tracing.End(span, err)
	return allowed, err
}

// answerAttrs describe a resolution on its span: every address answered,
// and the class of the one a refusal counted.
func answerAttrs(answers []netip.Addr, err error) []attribute.KeyValue {
	addrs := make([]string, len(answers))
	for i, a := range answers {
		addrs[i] = a.String()
	}
	attrs := []attribute.KeyValue{
		attribute.Int("sitediag.resolve.answers", len(answers)),
		attribute.StringSlice("sitediag.resolve.addresses", addrs),
	}
	if errors.Is(err, netx.ErrNotAllowed) {
		attrs = append(attrs, tracing.KeyRefusalClass.String(Class(answers[0])))
	}
	return attrs
}

// resolve returns the allowed addresses of host and every address the
// resolver answered.
func (g *Guard) resolve(ctx context.Context, host string) (allowed, answers []netip.Addr, err error) {
	answers, err = g.resolver.LookupAddrs(ctx, host)
	if err == nil && len(answers) == 0 {
		// Not a policy matter: the name leads nowhere.
		err = errNoAddress
	}
	if err != nil {
		return nil, nil, &ResolveError{Host: host, Err: err}
	}
	for _, a := range answers {
		if g.policy.Allowed(a) {
			allowed = append(allowed, a.WithZone("").Unmap())
		}
	}
	if len(allowed) == 0 {
		g.refused.add(answers[0])
		return nil, answers, netx.ErrNotAllowed
	}
	return allowed, answers, nil
}

// DialContext connects to address (host:port) over network ("tcp",
// "tcp4", "tcp6", "udp", …). It resolves host once with the guard's
// resolver, then dials the allowed addresses in turn; each literal address
// is checked again at connect time, so neither DNS rebinding nor a
// resolver that disagrees can slip a refused address through.
func (g *Guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	addrs, port, err := g.resolveAddress(ctx, address)
	if err != nil {
		return nil, err
	}
	return g.DialAddrs(ctx, network, addrs, port)
}

// resolveAddress splits host:port and resolves host to allowed addresses.
func (g *Guard) resolveAddress(ctx context.Context, address string) ([]netip.Addr, uint16, error) {
	host, port, err := splitHostPort(address)
	if err != nil {
		return nil, 0, err
	}
	addrs, err := g.Resolve(ctx, host)
	return addrs, port, err
}

// DialLiteral connects to address, an IP address and port
// ("192.0.2.1:443", "[2001:db8::1]:80"), without a resolution: the caller
// has resolved and pinned the target (ping, portscan). The address is
// checked at connect time, as every address is.
func (g *Guard) DialLiteral(ctx context.Context, network, address string) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return nil, fmt.Errorf("guard: %q is not an IP address and port: %w", address, err)
	}
	return g.DialAddrs(ctx, network, []netip.Addr{ap.Addr()}, ap.Port())
}

// DialAddrs connects to the first of addrs that accepts, on port. Use it
// when the caller has already resolved and pinned the target.
func (g *Guard) DialAddrs(ctx context.Context, network string, addrs []netip.Addr, port uint16) (net.Conn, error) {
	return g.firstConn(ctx, network, addrs, port, func(ctx context.Context, ap netip.AddrPort) (net.Conn, error) {
		return g.dial(ctx, network, ap.String())
	}, nil)
}

// firstConn calls connect on each allowed address of addrs in turn and
// returns the first connection. It stops early when ctx ends or when
// stop, if set, says an error will not get better with another address.
// Each address, a refused one included, is a "connect" span under the
// span in ctx, and connect gets ctx with that span.
func (g *Guard) firstConn(ctx context.Context, network string, addrs []netip.Addr, port uint16,
	connect func(context.Context, netip.AddrPort) (net.Conn, error), stop func(error) bool) (net.Conn, error) {
	var errs []error
	traced := trace.SpanFromContext(ctx).IsRecording()
	for _, a := range addrs {
		ap := netip.AddrPortFrom(a.WithZone("").Unmap(), port)
		spanCtx, span := ctx, trace.Span(noop.Span{})
		if traced {
			spanCtx, span = tracing.Start(ctx, tracing.SpanConnect, attribute.String("network.transport", network),
				attribute.String("network.peer.address", ap.Addr().String()), attribute.Int("network.peer.port", int(port)))
		}
		if !g.allowed(a) {
			endConnect(span, ap, netx.ErrNotAllowed)
			errs = append(errs, netx.ErrNotAllowed)
			continue
		}
		conn, err := connect(spanCtx, ap)
		endConnect(span, ap, err)
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil || (stop != nil && stop(err)) {
			break
		}
	}
	switch len(errs) {
	case 0:
		return nil, netx.ErrNotAllowed
	case 1:
		return nil, errs[0]
	}
	return nil, errors.Join(errs...)
}

// endConnect ends the "connect" span of ap with err, naming the class of
// a refused address.
func endConnect(span trace.Span, ap netip.AddrPort, err error) {
	if errors.Is(err, netx.ErrNotAllowed) {
		span.SetAttributes(tracing.KeyRefusalClass.String(Class(ap.Addr())))
	}
	tracing.End(span, err)
}

// control runs after the socket is created and before it connects: the
// last word on the literal address.
func (g *Guard) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !g.allowed(ap.Addr()) {
		return netx.ErrNotAllowed
	}
	return nil
}

// errNoAddress is a resolver's empty answer without an error.
var errNoAddress = errors.New("no address")

// ResolveError means a name could not be resolved: it does not exist, has
// no address, or no server answered.
type ResolveError struct {
	Host string
	Err  error
}

func (e *ResolveError) Error() string { return "guard: resolving " + e.Host + ": " + e.Err.Error() }

// Unwrap returns the resolver's error.
func (e *ResolveError) Unwrap() error { return e.Err }
