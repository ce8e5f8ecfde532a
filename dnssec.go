package sitediag

import (
	"context"
	"errors"

	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/target"
)

// DNSSECOptions are the options of DNSSEC and the API's body of /dnssec
// (besides url). There are none yet; the zero value is the only value.
type DNSSECOptions struct{}

// DNSSECResult is what the DNSSEC check found. Its JSON is the API's data:
// isEnabled, dnskey, rrsig, and beyond the spec zone and validation. Host
// feeds meta.
type DNSSECResult struct {
	dns.DNSSECReport
	// Host is the target's host, with a port when not the default.
	Host string `json:"-"`
}

// DNSSEC checks the DNSSEC of the zone that the host of rawTarget (a URL, a
// bare host or an IP literal, checked under its reverse name) belongs
// to: whether the zone serves signed DNSKEYs, and whether the chain of
// trust from Config.DNSSECTrustAnchor (the IANA root by default) down to
// the host, and the host's answers, hold up at Config.Now
// (Validation.Chain has each link). A bogus or missing signature is a
// finding in Validation, not an error.
//
// Errors: CodeInvalidURL; CodeDNSSECTimeout (the DNS servers did not
// answer in time); CodeDNSSECQueryFailed (a server answered SERVFAIL,
// REFUSED or another error code, or none could be reached);
// CodeDNSSECCheckFailed (ctx was cancelled, or no server is configured).
func (c *Client) DNSSEC(ctx context.Context, rawTarget string, opts DNSSECOptions) (*DNSSECResult, error) {
	open := func() (*target.Target, error) { return parseDomain(rawTarget) }
	check := func(ctx context.Context, t *target.Target) (*DNSSECResult, error) {
		report, err := c.resolver.CheckDNSSEC(ctx, queryName(t), c.cfg.Now())
		if err != nil {
			return nil, err
		}
		return &DNSSECResult{DNSSECReport: *report, Host: t.Display()}, nil
	}
	return runOp(ctx, c, "DNSSEC", rawTarget, &opts, open, check, func(err error) error { return mapDNSSECError(err) })
}

// mapDNSSECError maps what a DNSSEC check returns to the documented
// codes.
func mapDNSSECError(err error) *Error {
	var rcodeErr *dns.RcodeError
	switch {
	case errors.Is(err, dns.ErrTimeout):
		return NewError(CodeDNSSECTimeout, err, "the DNS servers did not answer in time")
	case errors.As(err, &rcodeErr):
		return NewError(CodeDNSSECQueryFailed, err, "the DNS server answered %s to the %s query for %s",
			rcodeErr.Rcode, rcodeErr.Type, rcodeErr.Name)
	case errors.Is(err, context.Canceled):
		return NewError(CodeDNSSECCheckFailed, err, "the check was cancelled")
	case errors.Is(err, dns.ErrNoAnswer):
		return NewError(CodeDNSSECQueryFailed, err, "no DNS server answered")
	}
	return NewError(CodeDNSSECCheckFailed, err, "the DNSSEC check could not be completed")
}

// DNSSEC calls Client.DNSSEC on the default client.
func DNSSEC(ctx context.Context, rawTarget string, opts DNSSECOptions) (*DNSSECResult, error) {
	return onDefault(ctx, rawTarget, opts, (*Client).DNSSEC)
}
