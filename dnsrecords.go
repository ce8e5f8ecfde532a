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

// DNSRecords looks up the records of the host of rawTarget (a URL, a
// bare host or an IP literal; an IP is looked up under its reverse name,
// such as 4.3.2.1.in-addr.arpa) with the configured DNS servers, all
// types concurrently. A name that does not exist is a result whose Rcode
// is NXDOMAIN. Errors: CodeInvalidURL, CodeInvalidParameters (a bad
// type), CodeDNSLookupFailed (no server answered).
func (c *Client) DNSRecords(ctx context.Context, rawTarget string, opts DNSRecordsOptions) (*DNSRecordsResult, error) {
	open := func() (*target.Target, error) {
		t, err := parseDomain(rawTarget)
		if err != nil {
			return nil, err
		}
		if opts.Types, err = dns.ParseTypes(opts.Types); err != nil {
			return nil, typesError(err)
		}
		return t, nil
	}
	lookup := func(ctx context.Context, t *target.Target) (*DNSRecordsResult, error) {
		records, err := c.resolver.LookupRecords(ctx, queryName(t), opts.Types)
		if err != nil {
			return nil, err
		}
		return &DNSRecordsResult{Records: *records, Host: t.Display(), Settings: opts}, nil
	}
	return runOp(ctx, c, "DNSRecords", rawTarget, &opts, open, lookup, func(err error) error { return mapLookupError(err) })
}

// mapLookupError maps what a record lookup returns to the documented
// codes.
func mapLookupError(err error) *Error {
	switch {
	case errors.Is(err, dns.ErrTimeout):
		return NewError(CodeDNSLookupFailed, err, "no DNS server answered in time")
	case errors.Is(err, dns.ErrNoAnswer):
		return NewError(CodeDNSLookupFailed, err, "no DNS server answered")
	}
	return NewError(CodeDNSLookupFailed, err, "the DNS lookup could not be completed")
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
