package dns

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	mdns "github.com/miekg/dns"
	"golang.org/x/sync/errgroup"
)

// Status is the outcome of validating a zone's DNSSEC.
type Status string

// The outcomes, after RFC 4033 §5.
const (
	// Secure: a DS at the parent matches a key-signing key that signs
	// the DNSKEY RRset, and the signatures are valid now.
	Secure Status = "secure"
	// Insecure: the parent publishes no DS for the zone, so resolvers
	// do not expect signatures.
	Insecure Status = "insecure"
	// Bogus: the parent says the zone is signed, but its keys or
	// signatures do not hold up.
	Bogus Status = "bogus"
	// Indeterminate: the check could not decide (the name does not
	// exist, the DS query failed, or an algorithm is not supported).
	Indeterminate Status = "indeterminate"
)

// Validation is the verdict on a zone's DNSSEC and the checks behind it.
type Validation struct {
	Status Status `json:"status"`
	// DNSKEYSignatureValid: an RRSIG over the DNSKEY RRset verifies with
	// a key-signing key of the set and is inside its validity period.
	DNSKEYSignatureValid bool `json:"dnskeySignatureValid"`
	// DSMatchesKSK: a DS record at the parent matches a key-signing key.
	DSMatchesKSK bool `json:"dsMatchesKsk"`
	// Reason says in a sentence why Status is what it is.
	Reason string `json:"reason"`
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
	// Zone is the zone the name belongs to, whose keys were checked.
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
// zone apex), fetches its DNSKEY RRset and SOA with their RRSIGs and the
// DS set at the parent, and validates them at time now: the DNSKEY
// RRset's signature against the zone's key-signing keys, the SOA's
// against its keys, and the DS against the key-signing keys. Queries set
// the DO bit and the CD bit, so a validating resolver hands over what a
// bogus zone serves instead of SERVFAIL; its AD bit is not used.
//
// The trust chain above the parent's DS is not followed: Secure means the
// zone's own link (DS, keys, signatures) holds. A bogus signature is a
// finding, not an error.
//
// Errors: a *RcodeError when a server answers SERVFAIL, REFUSED or
// another error code; an error wrapping ErrNoAnswer (and ErrTimeout when
// time ran out) when no server answers.
func (r *Resolver) CheckDNSSEC(ctx context.Context, name string, now time.Time) (*DNSSECReport, error) {
	zone, soa, err := r.findZone(ctx, mdns.Fqdn(name))
	if err != nil {
		return nil, err
	}
	report := &DNSSECReport{Zone: hostName(zone), DNSKEY: []string{}, RRSIG: []string{}}
	if zone == "" {
		report.Zone = hostName(mdns.Fqdn(name))
		report.Validation = Validation{Status: Indeterminate, Reason: "the name does not exist (NXDOMAIN)"}
		return report, nil
	}
	var keyResp, dsResp *mdns.Msg
	var dsErr error
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		keyResp, err = r.querySigned(gctx, zone, mdns.TypeDNSKEY)
		return err
	})
	g.Go(func() error {
		dsResp, dsErr = r.querySigned(gctx, zone, mdns.TypeDS)
		var rcodeErr *RcodeError
		if errors.As(dsErr, &rcodeErr) {
			return nil // a finding: the verdict is indeterminate
		}
		return dsErr
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	z := zoneData{
		name:    zone,
		keys:    rrsOf[*mdns.DNSKEY](keyResp.Answer, zone, mdns.TypeDNSKEY),
		keySigs: sigsOver(keyResp.Answer, zone, mdns.TypeDNSKEY),
		soa:     rrsOf[*mdns.SOA](soa, zone, mdns.TypeSOA),
		soaSigs: sigsOver(soa, zone, mdns.TypeSOA),
		dsErr:   dsErr,
	}
	if dsErr == nil {
		z.ds = rrsOf[*mdns.DS](dsResp.Answer, zone, mdns.TypeDS)
	}
	for _, k := range z.keys {
		report.DNSKEY = append(report.DNSKEY, recordText(k))
	}
	for _, sig := range append(z.keySigs, z.soaSigs...) {
		report.RRSIG = append(report.RRSIG, recordText(sig))
	}
	report.IsEnabled = len(z.keys) > 0 && len(z.keySigs) > 0
	report.Validation = z.validate(now)
	return report, nil
}

// findZone returns the apex of the zone fqdn belongs to, with the SOA
// RRset and its RRSIGs, by asking for the SOA of fqdn and then of each
// ancestor: the answer names the apex, or, when the name exists but has
// no SOA and is no alias, the authority section does (the root zone
// excepted). The zone is "" when fqdn does not exist, and fqdn itself
// when no zone is found.
func (r *Resolver) findZone(ctx context.Context, fqdn string) (string, []mdns.RR, error) {
	for off, end := 0, false; !end; off, end = mdns.NextLabel(fqdn, off) {
		name := fqdn[off:]
		resp, err := r.querySigned(ctx, name, mdns.TypeSOA)
		if err != nil {
			return "", nil, err
		}
		if resp.Rcode == mdns.RcodeNameError && off == 0 {
			return "", nil, nil
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

// zoneData is what the servers said about a zone.
type zoneData struct {
	name    string
	keys    []*mdns.DNSKEY
	keySigs []*mdns.RRSIG
	soa     []*mdns.SOA
	soaSigs []*mdns.RRSIG
	ds      []*mdns.DS
	dsErr   error
}

// validate judges z at time now.
func (z *zoneData) validate(now time.Time) Validation {
	ksks := keySigningKeys(z.keys)
	matched, dsProblem := z.matchDS(ksks)
	var signers []*mdns.DNSKEY
	var keyProblem problem
	if len(z.keys) > 0 {
		signers, keyProblem = verifyRRset(z.keySigs, ksks, asRRs(z.keys), now)
	}
	v := Validation{DNSKEYSignatureValid: len(signers) > 0, DSMatchesKSK: len(matched) > 0}
	verdict := func(s Status, reason string) Validation {
		v.Status, v.Reason = s, reason
		return v
	}
	switch {
	case z.dsErr != nil:
		return verdict(Indeterminate, "the DS query to the parent failed: "+z.dsErr.Error())
	case len(z.keys) == 0 && len(z.ds) > 0:
		return verdict(Bogus, "the parent publishes a DS record but the zone serves no DNSKEY")
	case len(z.keys) == 0:
		return verdict(Insecure, "the zone serves no DNSKEY records and the parent publishes no DS")
	case len(z.ds) == 0:
		return verdict(Insecure, "the parent publishes no DS record for the zone, so resolvers do not validate it")
	case len(z.keySigs) == 0:
		return verdict(Bogus, "the parent publishes a DS record but the DNSKEY RRset is not signed")
	case len(matched) == 0:
		return verdict(dsProblem.status(), dsProblem.reason)
	case len(signers) == 0:
		return verdict(keyProblem.status(), keyProblem.reason)
	}
	anchored := false
	for _, k := range signers {
		anchored = anchored || matched[k]
	}
	if !anchored {
		return verdict(Bogus, "the key-signing key the DS matches does not sign the DNSKEY RRset")
	}
	if len(z.soa) > 0 {
		if soaSigners, p := verifyRRset(z.soaSigs, z.keys, asRRs(z.soa), now); len(soaSigners) == 0 {
			return verdict(p.status(), p.reason)
		}
	}
	return verdict(Secure, "a DS at the parent matches a key-signing key whose signature over the DNSKEY RRset is valid, and the SOA signature is valid")
}

// problem says why a check failed.
type problem struct {
	reason string
	// unsupported: an algorithm or digest type this package cannot
	// check, which leaves the verdict open.
	unsupported bool
}

func (p problem) status() Status {
	if p.unsupported {
		return Indeterminate
	}
	return Bogus
}

// keySigningKeys returns the keys with the SEP flag, or every zone key
// when none has it (a zone signed with one key without the flag).
func keySigningKeys(keys []*mdns.DNSKEY) []*mdns.DNSKEY {
	var ksks, zoneKeys []*mdns.DNSKEY
	for _, k := range keys {
		if k.Flags&mdns.ZONE == 0 {
			continue
		}
		zoneKeys = append(zoneKeys, k)
		if k.Flags&mdns.SEP != 0 {
			ksks = append(ksks, k)
		}
	}
	if len(ksks) == 0 {
		return zoneKeys
	}
	return ksks
}

// matchDS returns the keys among ksks that a DS of z matches (key tag,
// algorithm and digest), and why none does when none does.
func (z *zoneData) matchDS(ksks []*mdns.DNSKEY) (map[*mdns.DNSKEY]bool, problem) {
	matched := map[*mdns.DNSKEY]bool{}
	supported := false
	tags := keyTags(ksks)
	// Each key's digest is computed once per digest type, however many
	// DS records share its key tag.
	type digestKey struct {
		key        *mdns.DNSKEY
		digestType uint8
	}
	digests := map[digestKey]string{}
	for _, ds := range z.ds {
		switch ds.DigestType {
		case mdns.SHA1, mdns.SHA256, mdns.SHA384:
			supported = true
		default:
			continue
		}
		for i, k := range ksks {
			if tags[i] != ds.KeyTag || k.Algorithm != ds.Algorithm {
				continue
			}
			dk := digestKey{k, ds.DigestType}
			digest, ok := digests[dk]
			if !ok {
				if want := k.ToDS(ds.DigestType); want != nil {
					digest = want.Digest
				}
				digests[dk] = digest
			}
			if digest != "" && strings.EqualFold(digest, ds.Digest) {
				matched[k] = true
			}
		}
	}
	if !supported {
		return matched, problem{reason: "the digest types of the parent's DS records are not supported", unsupported: true}
	}
	return matched, problem{reason: "no DS record at the parent matches a key-signing key of the zone"}
}

// maxSignatureChecks bounds the signature verifications spent on one
// RRset. Whoever asks may name a zone of their own, and a zone that
// publishes many keys and signatures sharing one key tag would
// otherwise have every pair tried (KeyTrap, CVE-2023-50387);
// validating resolvers give up on such zones too. A signed zone needs
// one check per signature, and has a few.
const maxSignatureChecks = 16

// verifyRRset returns the keys that sign rrset with one of sigs, the
// signature verifying and valid at now; when none does, it says why. It
// stops after maxSignatureChecks verifications.
func verifyRRset(sigs []*mdns.RRSIG, keys []*mdns.DNSKEY, rrset []mdns.RR, now time.Time) ([]*mdns.DNSKEY, problem) {
	typ := mdns.TypeToString[rrset[0].Header().Rrtype]
	if len(sigs) == 0 {
		return nil, problem{reason: "the " + typ + " RRset is not signed"}
	}
	tags := keyTags(keys)
	var signers []*mdns.DNSKEY
	var first problem
	note := func(p problem) {
		if first.reason == "" {
			first = p
		}
	}
	checks := 0
	for _, sig := range sigs {
		found := false
		for i, k := range keys {
			if tags[i] != sig.KeyTag || k.Algorithm != sig.Algorithm {
				continue
			}
			found = true
			if checks == maxSignatureChecks {
				if len(signers) > 0 {
					return signers, problem{}
				}
				return nil, problem{reason: fmt.Sprintf("gave up on the %s RRset after %d signature checks: too many keys and signatures share a key tag", typ, checks)}
			}
			checks++
			err := sig.Verify(k, rrset)
			switch {
			case errors.Is(err, mdns.ErrAlg):
				note(problem{reason: fmt.Sprintf("algorithm %d of the %s signature is not supported", sig.Algorithm, typ), unsupported: true})
			case err != nil:
				note(problem{reason: fmt.Sprintf("the %s signature by key %d does not verify", typ, sig.KeyTag)})
			case !sig.ValidityPeriod(now):
				note(problem{reason: validityReason(sig, typ, now)})
			default:
				signers = append(signers, k)
			}
		}
		if !found {
			note(problem{reason: fmt.Sprintf("no key of the zone matches the %s signature's key tag %d", typ, sig.KeyTag)})
		}
	}
	if len(signers) > 0 {
		return signers, problem{}
	}
	return nil, first
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
