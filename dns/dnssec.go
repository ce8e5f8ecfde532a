package dns

import (
	"context"
	"fmt"
	"strings"
	"time"

	mdns "github.com/miekg/dns"
)

// Status is the outcome of validating a zone's DNSSEC.
type Status string

// The outcomes, after RFC 4033 §5.
const (
	// Secure: every link from the trust anchor down to the name, and
	// the name's answers or their denial, validate now.
	Secure Status = "secure"
	// Insecure: an unsigned delegation on the way is proven (or uses
	// only unsupported algorithms), so resolvers expect no signatures.
	Insecure Status = "insecure"
	// Bogus: a link or an answer that must be signed does not hold up.
	Bogus Status = "bogus"
	// Indeterminate: the check could not decide (the name is outside
	// the trust anchor, or the server is not recursive).
	Indeterminate Status = "indeterminate"
)

// Validation is the verdict on a zone's DNSSEC and the checks behind it.
type Validation struct {
	Status Status `json:"status"`
	// DNSKEYSignatureValid: an RRSIG over the zone's DNSKEY RRset
	// verifies with a key a DS matches and is inside its validity
	// period. Nil (null) when it was not checked: the chain of trust
	// stopped above the zone, or no DS of the zone is usable or matches.
	DNSKEYSignatureValid *bool `json:"dnskeySignatureValid"`
	// DSMatchesKSK: a usable DS record at the parent matches a key of
	// the zone. Nil (null) when it was not checked: the chain of trust
	// stopped above the zone, or the zone has no usable, validated DS.
	DSMatchesKSK *bool `json:"dsMatchesKsk"`
	// Reason says in a sentence why Status is what it is; for bogus,
	// the first failing link or answer.
	Reason string `json:"reason"`
	// Chain has one entry per zone cut from the trust anchor down to the
	// name, in that order, each validated or with why not.
	Chain []ChainLink `json:"chain"`
	// InsecureAt is the zone whose unsigned delegation was proven, when
	// Status is insecure.
	InsecureAt string `json:"insecureAt,omitempty"`
	// FailingLink is the zone where a bogus verdict comes from: the
	// first zone of Chain that is bogus, or else the zone whose answer
	// (or denial) does not hold up.
	FailingLink string `json:"failingLink,omitempty"`
}

// DNSSECReport is what CheckDNSSEC found for a name.
type DNSSECReport struct {
	// IsEnabled: the zone serves a DNSKEY RRset with an RRSIG over it.
	IsEnabled bool `json:"isEnabled"`
	// DNSKEY are the zone's keys as record text without owner, TTL and
	// class ("DNSKEY 257 3 13 <base64>").
	DNSKEY []string `json:"dnskey"`
	// RRSIG are the signatures over the DNSKEY RRset, then over the
	// SOA RRset, in the same form ("RRSIG DNSKEY 13 2 3600 …").
	RRSIG []string `json:"rrsig"`
	// Zone is the zone the name belongs to, whose keys were checked:
	// for a name that does not exist, the closest enclosing zone.
	Zone string `json:"zone"`
	// Validation is the verdict.
	Validation Validation `json:"validation"`
}

// RcodeError means a server answered a query of CheckDNSSEC or
// LookupAddrs with an error code such as SERVFAIL or REFUSED.
type RcodeError struct {
	// Name is the name queried, without the trailing dot.
	Name string
	// Type is the query type, such as DNSKEY or A.
	Type string
	// Rcode is the code answered, such as SERVFAIL.
	Rcode string
}

func (e *RcodeError) Error() string {
	return fmt.Sprintf("dns: %s %s: server answered %s", e.Type, e.Name, e.Rcode)
}

// CheckDNSSEC finds the zone name belongs to (name itself when it is a
// zone apex, the closest enclosing zone when name does not exist) and
// lists its DNSKEY RRset and RRSIGs, then validates at time now the
// chain of trust from r.TrustAnchor (the IANA root by default) down to
// name: at each zone cut the DS RRset signed by the parent's validated
// keys, the DNSKEY RRset signed by a key a DS matches, a missing DS
// proven by NSEC or NSEC3; then the name's A, AAAA, MX and TXT answers
// and the zone's SOA, following CNAMEs and DNAMEs before any denial is
// judged, with wildcard expansions and denials proven. Queries set the
// DO and CD bits, so a validating resolver hands over what a bogus zone
// serves; they are cached for the call, and a server that timed out is
// not asked again during it. A bogus signature is a finding, not an
// error.
//
// Errors: a *RcodeError when a server answers SERVFAIL, REFUSED or
// another error code; an error wrapping ErrNoAnswer (and ErrTimeout when
// time ran out) when no server answers.
func (r *Resolver) CheckDNSSEC(ctx context.Context, name string, now time.Time) (*DNSSECReport, error) {
	ctx = withDeadServers(ctx)
	fqdn := mdns.CanonicalName(mdns.Fqdn(name))
	zone, soa, err := r.findZone(ctx, fqdn)
	if err != nil {
		return nil, err
	}
	report := &DNSSECReport{Zone: hostName(zone), DNSKEY: []string{}, RRSIG: []string{}}
	keyResp, err := r.querySigned(ctx, zone, mdns.TypeDNSKEY)
	if err != nil {
		return nil, err
	}
	for _, k := range rrsOf[*mdns.DNSKEY](keyResp.Answer, zone, mdns.TypeDNSKEY) {
		report.DNSKEY = append(report.DNSKEY, recordText(k))
	}
	keySigs := sigsOver(keyResp.Answer, zone, mdns.TypeDNSKEY)
	for _, sig := range append(keySigs, sigsOver(soa, zone, mdns.TypeSOA)...) {
		report.RRSIG = append(report.RRSIG, recordText(sig))
	}
	report.IsEnabled = len(report.DNSKEY) > 0 && len(keySigs) > 0
	anchor := r.TrustAnchor
	if anchor == nil {
		anchor = RootTrustAnchor()
	}
	v := &validator{r: r, now: now, anchor: anchor, cache: map[question]*mdns.Msg{}, zones: map[string]*zoneState{}, chain: []ChainLink{}}
	val, err := v.validate(ctx, fqdn, zone)
	if err != nil {
		return nil, err
	}
	report.Validation = val
	return report, nil
}

// validate follows the chain to fqdn and judges its answers and the SOA
// of its zone.
func (v *validator) validate(ctx context.Context, fqdn, zone string) (Validation, error) {
	questions := make([]question, 0, len(answerTypes)+1)
	for _, t := range answerTypes {
		questions = append(questions, question{fqdn, t})
	}
	questions = append(questions, question{zone, mdns.TypeSOA})
	worst := verdict{status: Secure}
	rank := map[Status]int{Secure: 0, Insecure: 1, Indeterminate: 2, Bogus: 3}
	for _, q := range questions {
		got, err := v.judgeAnswer(ctx, q.name, q.qtype)
		if err != nil {
			return Validation{}, err
		}
		if rank[got.status] > rank[worst.status] {
			worst = got
		}
	}
	val := Validation{Status: worst.status, Reason: worst.reason, Chain: v.chain}
	for _, l := range v.chain {
		switch {
		case l.Status == Insecure && val.Status == Insecure && val.InsecureAt == "":
			val.InsecureAt = l.Zone
		case l.Status == Bogus && val.FailingLink == "":
			val.FailingLink = l.Zone
		}
		if l.Zone == hostName(zone) {
			val.DNSKEYSignatureValid, val.DSMatchesKSK = l.DNSKEYValidated, l.dsMatched
		}
	}
	if val.Status == Bogus && val.FailingLink == "" {
		val.FailingLink = hostName(worst.zone)
	}
	if v.notRecursive && val.Status != Secure {
		val.Status = Indeterminate
		val.Reason = "the DNS server does not offer recursion (its answers have the RA bit clear), so the chain of trust could not be followed: configure a recursive resolver"
	}
	if val.Status == Secure {
		val.Reason = fmt.Sprintf("every link from the trust anchor (%s) to %s is signed and validated, and so are the answers for the name", hostName(v.anchor.zone), hostName(fqdn))
	}
	return val, nil
}

// findZone returns the apex of the zone fqdn belongs to, with the SOA
// RRset and its RRSIGs, by asking for the SOA of fqdn and then of each
// ancestor: the answer names the apex, or, when the name has no SOA (or
// does not exist) and is no alias, the authority section does (the root
// zone excepted). The zone is fqdn itself when no zone is found.
func (r *Resolver) findZone(ctx context.Context, fqdn string) (string, []mdns.RR, error) {
	for off, end := 0, false; !end; off, end = mdns.NextLabel(fqdn, off) {
		name := fqdn[off:]
		resp, err := r.querySigned(ctx, name, mdns.TypeSOA)
		if err != nil {
			return "", nil, err
		}
		if soa := rrsOf[*mdns.SOA](resp.Answer, name, mdns.TypeSOA); len(soa) > 0 {
			return name, resp.Answer, nil
		}
		if len(resp.Answer) > 0 {
			continue // an alias: its target's zone is not this name's
		}
		for _, rr := range resp.Ns {
			if soa, ok := rr.(*mdns.SOA); ok && soa.Hdr.Name != "." && mdns.IsSubDomain(soa.Hdr.Name, name) {
				return mdns.CanonicalName(soa.Hdr.Name), resp.Ns, nil
			}
		}
	}
	return fqdn, nil, nil
}

// querySigned asks for name and qtype with the DO and CD bits. An rcode
// other than NOERROR and NXDOMAIN is a *RcodeError.
func (r *Resolver) querySigned(ctx context.Context, name string, qtype uint16) (*mdns.Msg, error) {
	msg := new(mdns.Msg)
	msg.SetQuestion(name, qtype)
	msg.CheckingDisabled = true
	msg.SetEdns0(ednsBufferSize, true)
	resp, err := r.Exchange(ctx, msg)
	if err != nil {
		return nil, fmt.Errorf("dns: %s %s: %w", mdns.TypeToString[qtype], hostName(name), err)
	}
	if resp.Rcode != mdns.RcodeSuccess && resp.Rcode != mdns.RcodeNameError {
		return nil, &RcodeError{Name: hostName(name), Type: mdns.TypeToString[qtype], Rcode: rcodeString(resp.Rcode)}
	}
	return resp, nil
}

// rrsOf returns the records of type rtype owned by owner.
func rrsOf[R mdns.RR](rrs []mdns.RR, owner string, rtype uint16) []R {
	var out []R
	for _, rr := range rrs {
		if v, ok := rr.(R); ok && rr.Header().Rrtype == rtype && strings.EqualFold(rr.Header().Name, owner) {
			out = append(out, v)
		}
	}
	return out
}

// sigsOver returns the RRSIGs owned by owner that cover rtype.
func sigsOver(rrs []mdns.RR, owner string, rtype uint16) []*mdns.RRSIG {
	var out []*mdns.RRSIG
	for _, sig := range rrsOf[*mdns.RRSIG](rrs, owner, mdns.TypeRRSIG) {
		if sig.TypeCovered == rtype {
			out = append(out, sig)
		}
	}
	return out
}

// recordText is rr in presentation form without owner, TTL and class.
func recordText(rr mdns.RR) string {
	return mdns.TypeToString[rr.Header().Rrtype] + " " + strings.TrimPrefix(rr.String(), rr.Header().String())
}

// keyTags returns the key tag of each key, computed once.
func keyTags(keys []*mdns.DNSKEY) []uint16 {
	tags := make([]uint16, len(keys))
	for i, k := range keys {
		tags[i] = k.KeyTag()
	}
	return tags
}

// validityReason says how sig's validity period misses now.
func validityReason(sig *mdns.RRSIG, typ string, now time.Time) string {
	const layout = "2006-01-02 15:04:05 UTC"
	if exp := time.Unix(int64(sig.Expiration), 0).UTC(); now.After(exp) {
		return fmt.Sprintf("the %s signature by key %d expired at %s", typ, sig.KeyTag, exp.Format(layout))
	}
	inc := time.Unix(int64(sig.Inception), 0).UTC()
	return fmt.Sprintf("the %s signature by key %d is not valid before %s", typ, sig.KeyTag, inc.Format(layout))
}

// asRRs converts a typed RRset back to []mdns.RR.
func asRRs[R mdns.RR](rrs []R) []mdns.RR {
	out := make([]mdns.RR, len(rrs))
	for i, rr := range rrs {
		out[i] = rr
	}
	return out
}
