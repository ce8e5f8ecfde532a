package sitediag

import (
	"cmp"
	"context"
	"errors"
	"net/netip"

	"github.com/sitediag/sitediag/net/mtr"
)

// MTROptions are the options of MTR and the API's body of /mtr. The zero
// value runs mtr.DefaultCount (5) rounds over up to mtr.DefaultMaxHops
// (30) hops, with host names.
type MTROptions struct {
	// Count is the number of rounds; each probes every hop once, a
	// second apart. Zero means mtr.DefaultCount (5).
	Count int `json:"count" api:"min=1,max=20"`
	// MaxHops is the largest TTL probed. Zero means mtr.DefaultMaxHops
	// (30).
	MaxHops int `json:"maxHops" api:"min=1,max=64"`
	// NoLookup skips the reverse (PTR) lookups: hosts are shown as
	// addresses, like mtr -n.
	NoLookup Toggle `json:"noLookup" api:"default=false"`
	// ProxyCountry must be empty: a trace cannot go through an HTTP
	// proxy.
	ProxyCountry string `json:"proxyCountry"`
}

// MTRHop is one line of the report.
type MTRHop = mtr.Hop

// MTRResult is the path to the target. Hops is the API's data; the other
// fields feed meta.
type MTRResult struct {
	// Hops are the report's lines, the API's data.
	Hops []MTRHop `json:"hops"`
	// Host is the target's host, with a port when not the default.
	Host string `json:"-"`
	// IP is the address traced.
	IP string `json:"-"`
	// Settings are the options the trace ran with, defaults filled in.
	Settings MTROptions `json:"-"`
}

// MTR traces the network path to rawTarget (a URL, host name or IP
// literal), resolved once, like mtr: TTL-limited ICMP echo in rounds, loss
// and round trips per hop. Hop names come from PTR lookups through the
// configured DNS servers (bounded in time; the address when there is
// none), origin AS numbers from Config.ASN or Config.ASNOriginZone
// ("AS???" when unknown). It needs raw ICMP sockets (root or
// CAP_NET_RAW). Errors: CodeInvalidURL, CodeInvalidParameters,
// CodeTargetNotAllowed, CodeUnableToConnect (the name did not resolve),
// CodeMTRFailed (no raw socket permission, nothing could be sent).
func (c *Client) MTR(ctx context.Context, rawTarget string, opts MTROptions) (*MTRResult, error) {
	op := hostOp{name: "MTR", failed: CodeMTRFailed, work: "trace", unsent: "no probe could be sent"}
	return runHost(ctx, c, rawTarget, &opts, &opts.ProxyCountry, op, func(ctx context.Context, t *pinnedTarget) (*MTRResult, error) {
		opts.Count, opts.MaxHops = cmp.Or(opts.Count, mtr.DefaultCount), cmp.Or(opts.MaxHops, mtr.DefaultMaxHops)
		mopts := mtr.Options{Count: opts.Count, MaxHops: opts.MaxHops, ASN: c.asnLookup(), Allow: c.guard.Allowed}
		if !opts.NoLookup.Bool() {
			mopts.Name = c.ptrName
		}
		hops, err := mtr.Trace(ctx, t.Addr, mopts)
		if errors.Is(err, mtr.ErrNoRawSocket) {
			return nil, NewError(CodeMTRFailed, err, "no permission to open raw ICMP sockets (run as root or grant CAP_NET_RAW)")
		}
		if err != nil {
			return nil, err
		}
		return &MTRResult{Hops: hops, Host: t.Display(), IP: t.Addr.String(), Settings: opts}, nil
	})
}

// ptrName is the first PTR name of addr from the configured servers;
// "" when there is none. A hop's name is a nicety: a failure is no name.
func (c *Client) ptrName(ctx context.Context, addr netip.Addr) string {
	names, err := c.resolver.LookupPTR(ctx, addr)
	if err != nil || len(names) == 0 {
		return ""
	}
	return names[0]
}

// asnLookup returns the origin-AS lookup the configuration asks for, or
// nil for none.
func (c *Client) asnLookup() func(context.Context, netip.Addr) string {
	if c.cfg.ASN != nil {
		return func(ctx context.Context, addr netip.Addr) string {
			as, err := c.cfg.ASN(ctx, addr)
			if err != nil {
				return ""
			}
			return as
		}
	}
	if c.cfg.ASNOriginZone == "" && c.cfg.ASNOrigin6Zone == "" {
		return nil
	}
	return c.originASN
}

// originASN looks the origin AS of addr up in the configured IP-to-ASN
// zones (Team Cymru's TXT format) through the configured servers.
func (c *Client) originASN(ctx context.Context, addr netip.Addr) string {
	name := mtr.OriginQuery(addr, c.cfg.ASNOriginZone, c.cfg.ASNOrigin6Zone)
	if name == "" {
		return ""
	}
	texts, _ := c.resolver.LookupTXT(ctx, name) // no AS is no answer, not an error
	for _, text := range texts {
		if as, err := mtr.ParseOrigin(text); err == nil {
			return as
		}
	}
	return ""
}

// MTR calls Client.MTR on the default client.
func MTR(ctx context.Context, rawTarget string, opts MTROptions) (*MTRResult, error) {
	return onDefault(ctx, rawTarget, opts, (*Client).MTR)
}
