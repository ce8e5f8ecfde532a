package sitediag

import (
	"context"
	"net/netip"

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
