package sitediag

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/target"
)

// DNSRecordsOptions are the options of DNSRecords and the API's body of
// /dnsrecord.
type DNSRecordsOptions struct {
	// Types are the record types to fetch, each once. Empty means all
	// nine.
	Types []string `json:"types" api:"enum=A|AAAA|CNAME|MX|CAA|NS|SOA|SRV|TXT"`
}

// DNSRecordsResult is the records found. It marshals to the API's data:
// an object keyed by the queried types.
type DNSRecordsResult struct {
	dns.Records
	// Host is the target's host, with a port when not the default.
	Host string `json:"-"`
	// Settings are the options the lookup ran with, Types filled in.
	Settings DNSRecordsOptions `json:"-"`
}

// DNSRecords looks up the records of the host of target (a URL, a bare
// host or an IP literal; an IP is looked up under its reverse name, such
// as 4.3.2.1.in-addr.arpa) with the configured DNS servers, all types
// concurrently. A name that does not exist is a result whose Rcode is
// NXDOMAIN. Errors: CodeInvalidURL, CodeInvalidParameters (a bad type),
// CodeDNSLookupFailed (no server answered).
func (c *Client) DNSRecords(ctx context.Context, target string, opts DNSRecordsOptions) (_ *DNSRecordsResult, err error) {
	ctx, end := c.startOp(ctx, "DNSRecords", target, opts)
	defer end(&err)
	if err := c.resolve(&opts); err != nil {
		return nil, err
	}
	t, err := parseDomain(target)
	if err != nil {
		return nil, err
	}
	if opts.Types, err = dns.ParseTypes(opts.Types); err != nil {
		return nil, typesError(err)
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	records, err := c.resolver.LookupRecords(ctx, queryName(t), opts.Types)
	if err != nil {
		if errors.Is(err, dns.ErrTimeout) {
			return nil, NewError(CodeDNSLookupFailed, err, "no DNS server answered in time")
		}
		if errors.Is(err, dns.ErrNoAnswer) {
			return nil, NewError(CodeDNSLookupFailed, err, "no DNS server answered")
		}
		return nil, NewError(CodeDNSLookupFailed, err, "the DNS lookup could not be completed")
	}
	return &DNSRecordsResult{Records: *records, Host: t.Display(), Settings: opts}, nil
}

// typesError turns a dns.ParseTypes error into INVALID_PARAMETERS.
func typesError(err error) *Error {
	var te *dns.TypeError
	switch {
	case !errors.As(err, &te):
		return InvalidParameter("types", "must list record types")
	case te.Duplicate:
		return InvalidParameter("types", strconv.Quote(te.Type)+" is listed twice")
	}
	return InvalidParameter("types", strconv.Quote(te.Type)+" is not one of "+strings.Join(dns.RecordTypes(), ", "))
}

// queryName is the DNS name the DNS operations ask about: the host, or
// the reverse name of an IP literal.
func queryName(t *target.Target) string {
	if t.IsIP() {
		return dns.ReverseName(t.Addr)
	}
	return t.Host
}

// DNSRecords calls Client.DNSRecords on the default client.
func DNSRecords(ctx context.Context, target string, opts DNSRecordsOptions) (*DNSRecordsResult, error) {
	return onDefault(ctx, target, opts, (*Client).DNSRecords)
}
