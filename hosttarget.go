package sitediag

import (
	"context"
	"errors"
	"net/netip"

	"github.com/sitediag/sitediag/internal/neterr"
	"github.com/sitediag/sitediag/internal/target"
	"github.com/sitediag/sitediag/net/netx"
)

// pinnedTarget is a host-level target resolved once: every packet of the
// operation goes to Addr and nowhere else.
type pinnedTarget struct {
	*target.Target
	Addr netip.Addr
}

// parseHostTarget parses what the host-level operations (/openport,
// /ping, /mtr) accept: a URL, a bare host or an IP literal. They send
// packets to the target itself, so a proxy country is refused.
func parseHostTarget(raw, proxyCountry string) (*target.Target, error) {
	t, err := parseHost(raw)
	if err != nil {
		return nil, err
	}
	if proxyCountry != "" {
		return nil, InvalidParameter("proxyCountry", "this operation sends packets to the target itself, which cannot go through an HTTP proxy; leave proxyCountry out")
	}
	return t, nil
}

// pin resolves t once with the guard and checks the address it will
// use. A refused target is TARGET_NOT_ALLOWED; a name that does not
// resolve is the target's outcome, UNABLE_TO_CONNECT (DESIGN §2).
func (c *Client) pin(ctx context.Context, t *target.Target) (*pinnedTarget, error) {
	addrs, err := c.guard.Resolve(ctx, t.Host)
	if err != nil {
		return nil, resolveFailed(err, t.Host)
	}
	addr := addrs[0]
	if !c.guard.Allowed(addr) {
		return nil, notAllowed(netx.ErrNotAllowed)
	}
	return &pinnedTarget{Target: t, Addr: addr}, nil
}

// hostOp describes a host-level operation to runHost.
type hostOp struct {
	// name is the operation's name, for its span: "Ping".
	name string
	// failed is the operation's own failure code.
	failed Code
	// work names what the operation does, for its messages: "ping",
	// "trace", "scan".
	work string
	// unsent says what could not be done when the operation fails
	// otherwise: "no request could be sent".
	unsent string
	// prepare, if not nil, checks what the operation needs beyond
	// its target before the target is resolved.
	prepare func() error
}

// runHost is the opening every host-level operation shares: runOp with
// opts (whose ProxyCountry proxyCountry points to), rawTarget parsed and
// op.prepare run, then the target pinned and probe run on it, its error
// mapped to the documented codes (an *Error passes as it is).
func runHost[O, R any](ctx context.Context, c *Client, rawTarget string, opts *O, proxyCountry *string, op hostOp,
	probe func(ctx context.Context, t *pinnedTarget) (R, error)) (R, error) {
	open := func() (*target.Target, error) {
		t, err := parseHostTarget(rawTarget, *proxyCountry)
		if err == nil && op.prepare != nil {
			err = op.prepare()
		}
		return t, err
	}
	run := func(ctx context.Context, t *target.Target) (R, error) {
		pinned, err := c.pin(ctx, t)
		if err != nil {
			var zero R
			return zero, err
		}
		return probe(ctx, pinned)
	}
	return runOp(ctx, c, op.name, rawTarget, opts, open, run, func(err error) error { return mapHostError(err, op) })
}

// mapHostError maps what a host-level probe returns to the documented
// codes.
func mapHostError(err error, op hostOp) *Error {
	var own *Error
	switch {
	case errors.As(err, &own):
		return own
	case errors.Is(err, netx.ErrNotAllowed):
		return notAllowed(err)
	case errors.Is(err, context.DeadlineExceeded):
		return NewError(op.failed, err, "the %s did not finish in time", op.work)
	}
	return NewError(op.failed, err, "%s: %s", op.unsent, neterr.Why(err))
}
