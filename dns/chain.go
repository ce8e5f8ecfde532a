package dns

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	mdns "github.com/miekg/dns"
)

// ChainLink is one zone cut on the way from the trust anchor to a name.
type ChainLink struct {
	// Zone is the zone, without the trailing dot ("." for the root).
	Zone string `json:"zone"`
	// DSFound: the parent (or the trust anchor) gives DS records.
	DSFound bool `json:"dsFound"`
	// DSValidated: the DS RRset is signed by the parent's validated
	// keys, or is the trust anchor. Nil (null) when there is no DS.
	DSValidated *bool `json:"dsValidated"`
	// DNSKEYValidated: a key the DS matches signs the DNSKEY RRset. Nil
	// (null) when this was not checked: no DS, a DS that does not
	// validate or uses no supported algorithm, or no key a DS matches.
	DNSKEYValidated *bool `json:"dnskeyValidated"`
	// Algorithms are the DNSSEC algorithms of the DS records, by their
	// mnemonic ("ECDSAP256SHA256").
	Algorithms []string `json:"algorithms"`
	// KeyTags are the key tags of the DS records.
	KeyTags []uint16 `json:"keyTags"`
	// Status is the link's verdict: secure, insecure (a proven
	// unsigned delegation), bogus or indeterminate.
	Status Status `json:"status"`
	// Reason says why, when Status is not secure.
	Reason string `json:"reason,omitempty"`

	// dsMatched: a DNSKEY of the zone matches a usable DS; nil when
	// there is no usable, validated DS to match.
	dsMatched *bool
}

// checked is the outcome of a check that ran.
func checked(ok bool) *bool { return &ok }

// Clock skew allowed on signature validity periods, as validating
// resolvers do.
const signatureSkew = 5 * time.Minute

// maxNSEC3Iterations: NSEC3 records with more iterations are treated as
// insecure (RFC 9276 §3.2; BIND and Unbound use 150).
const maxNSEC3Iterations = 150

// maxSignatureChecks bounds the signature verifications spent on one
// RRset. Whoever asks may name a zone of their own, and a zone that
// publishes many keys and signatures sharing one key tag would
// otherwise have every pair tried (KeyTrap, CVE-2023-50387).
const maxSignatureChecks = 16

// maxCNAMEs bounds the aliases followed for one answer.
const maxCNAMEs = 8

// validator validates one name; its cache lives for one request.
type validator struct {
	r      *Resolver
	now    time.Time
	anchor *TrustAnchor
	cache  map[question]*mdns.Msg
	zones  map[string]*zoneState
	chain  []ChainLink
	// notRecursive is set when a server answered without the RA bit.
	notRecursive bool
}

type question struct {
	name  string
	qtype uint16
}

// zoneState is the outcome for the zone that covers a name.
type zoneState struct {
	name   string
	keys   []*mdns.DNSKEY
	status Status
	reason string
}

func (v *validator) query(ctx context.Context, name string, qtype uint16) (*mdns.Msg, error) {
	q := question{mdns.CanonicalName(name), qtype}
	if m, ok := v.cache[q]; ok {
		return m, nil
	}
	m, err := v.r.querySigned(ctx, q.name, qtype)
	if err != nil {
		return nil, err
	}
	if !m.RecursionAvailable {
		v.notRecursive = true
	}
	v.cache[q] = m
	return m, nil
}

// walk follows the chain of trust from the anchor down to fqdn and
// returns the state of the deepest zone reached: secure with its keys, or
// where the chain stops (insecure, bogus, indeterminate).
func (v *validator) walk(ctx context.Context, fqdn string) (*zoneState, error) {
	fqdn = mdns.CanonicalName(fqdn)
	if !mdns.IsSubDomain(v.anchor.zone, fqdn) {
		return &zoneState{name: fqdn, status: Indeterminate,
			reason: fmt.Sprintf("%s is outside the trust anchor's zone %s", hostName(fqdn), hostName(v.anchor.zone))}, nil
	}
	cur, ok := v.zones[v.anchor.zone]
	if !ok {
		var err error
		if cur, err = v.enterZone(ctx, v.anchor.zone, v.anchor.ds, nil, true); err != nil {
			return nil, err
		}
	}
	if cur.status != Secure {
		return cur, nil
	}
	labels := mdns.SplitDomainName(fqdn)
	skip := mdns.CountLabel(v.anchor.zone)
	for i := len(labels) - skip - 1; i >= 0; i-- {
		name := mdns.Fqdn(strings.Join(labels[i:], "."))
		if z, ok := v.zones[name]; ok {
			if z.status != Secure {
				return z, nil
			}
			cur = z
			continue
		}
		next, stop, err := v.step(ctx, cur, name)
		if err != nil {
			return nil, err
		}
		if next != nil {
			cur = next
			if cur.status != Secure {
				return cur, nil
			}
		}
		if stop {
			break
		}
	}
	return cur, nil
}

// step asks whether name, below the secure zone cur, is a zone cut. It
// returns the child zone's state when it is, and stop when name does not
// exist (the answers' denial proofs say so).
func (v *validator) step(ctx context.Context, cur *zoneState, name string) (*zoneState, bool, error) {
	resp, err := v.query(ctx, name, mdns.TypeDS)
	if err != nil {
		return nil, false, err
	}
	if resp.Rcode == mdns.RcodeNameError {
		return nil, true, nil
	}
	ds := rrsOf[*mdns.DS](resp.Answer, name, mdns.TypeDS)
	if len(ds) > 0 {
		ok, why := v.verifyRRset(cur, asRRs(ds), sigsOver(resp.Answer, name, mdns.TypeDS))
		if !ok {
			z := v.record(name, ChainLink{DSFound: true, DSValidated: checked(false), Status: Bogus, Reason: fmt.Sprintf(
				"the DS RRset of %s is not validly signed by its parent %s: %s", hostName(name), hostName(cur.name), why)}, ds)
			return z, true, nil
		}
		z, err := v.enterZone(ctx, name, ds, cur, false)
		return z, false, err
	}
	if len(resp.Answer) > 0 {
		return nil, false, nil // an alias: the answers follow it
	}
	d := v.proveNoData(cur, resp, name, mdns.TypeDS)
	switch {
	case d.status == Secure && d.delegation:
		return v.record(name, ChainLink{Status: Insecure, Reason: fmt.Sprintf(
			"%s proves that the delegation to %s has no DS record: the zone is unsigned", hostName(cur.name), hostName(name))}, nil), true, nil
	case d.status == Secure:
		return nil, false, nil
	case d.status == Insecure:
		return v.record(name, ChainLink{Status: Insecure, Reason: d.reason}, nil), true, nil
	}
	return v.record(name, ChainLink{Status: Bogus, Reason: fmt.Sprintf(
		"%s's answer that %s has no DS record is not proven: %s", hostName(cur.name), hostName(name), d.reason)}, nil), true, nil
}

// record adds a link for zone to the chain and remembers the zone's state.
func (v *validator) record(zone string, link ChainLink, ds []*mdns.DS) *zoneState {
	link.Zone = hostName(zone)
	link.Algorithms, link.KeyTags = []string{}, []uint16{}
	for _, d := range ds {
		alg := mdns.AlgorithmToString[d.Algorithm]
		if alg == "" {
			alg = fmt.Sprint(d.Algorithm)
		}
		if !slices.Contains(link.Algorithms, alg) {
			link.Algorithms = append(link.Algorithms, alg)
		}
		if !slices.Contains(link.KeyTags, d.KeyTag) {
			link.KeyTags = append(link.KeyTags, d.KeyTag)
		}
	}
	v.chain = append(v.chain, link)
	z := &zoneState{name: zone, status: link.Status, reason: link.Reason}
	v.zones[zone] = z
	return z
}

// enterZone validates zone's DNSKEY RRset against its validated DS set.
func (v *validator) enterZone(ctx context.Context, zone string, ds []*mdns.DS, parent *zoneState, anchor bool) (*zoneState, error) {
	link := ChainLink{DSFound: true, DSValidated: checked(true)}
	usable := usableDS(ds)
	if len(usable) == 0 {
		link.Status = Insecure
		link.Reason = fmt.Sprintf("no DS record of %s uses a supported algorithm and digest type, so it is treated as unsigned (RFC 4035 §5.2)", hostName(zone))
		return v.record(zone, link, ds), nil
	}
	resp, err := v.query(ctx, zone, mdns.TypeDNSKEY)
	if err != nil {
		return nil, err
	}
	keys := rrsOf[*mdns.DNSKEY](resp.Answer, zone, mdns.TypeDNSKEY)
	sigs := sigsOver(resp.Answer, zone, mdns.TypeDNSKEY)
	from := "the trust anchor"
	if !anchor {
		from = "the DS at " + hostName(parent.name)
	}
	if len(keys) == 0 {
		link.dsMatched = checked(false)
		link.Status, link.Reason = Bogus, fmt.Sprintf("%s says %s is signed, but the zone serves no DNSKEY records", from, hostName(zone))
		return v.record(zone, link, ds), nil
	}
	// Any key of the set may be the one a DS matches: the SEP flag does
	// not count (RFC 4034 §2.1.1).
	var entry []*mdns.DNSKEY
	for _, k := range keys {
		if k.Flags&mdns.ZONE == 0 || k.Protocol != 3 {
			continue
		}
		for _, d := range usable {
			if dsMatches(d, k) {
				entry = append(entry, k)
				break
			}
		}
	}
	link.dsMatched = checked(len(entry) > 0)
	if len(entry) == 0 {
		link.Status, link.Reason = Bogus, fmt.Sprintf("no DNSKEY of %s matches %s (key tags %v)", hostName(zone), from, dsTags(usable))
		return v.record(zone, link, ds), nil
	}
	entryZone := &zoneState{name: zone, keys: entry}
	if ok, why := v.verifyRRset(entryZone, asRRs(keys), sigs); !ok {
		link.DNSKEYValidated = checked(false)
		link.Status, link.Reason = Bogus, fmt.Sprintf("the DNSKEY RRset of %s is not validly signed by a key that %s matches: %s", hostName(zone), from, why)
		return v.record(zone, link, ds), nil
	}
	link.DNSKEYValidated, link.Status = checked(true), Secure
	z := v.record(zone, link, ds)
	z.keys = keys
	return z, nil
}

func dsMatches(d *mdns.DS, k *mdns.DNSKEY) bool {
	if d.Algorithm != k.Algorithm || d.KeyTag != k.KeyTag() {
		return false
	}
	want := k.ToDS(d.DigestType)
	return want != nil && strings.EqualFold(want.Digest, d.Digest)
}

func dsTags(ds []*mdns.DS) []uint16 {
	var tags []uint16
	for _, d := range ds {
		tags = append(tags, d.KeyTag)
	}
	return tags
}

// usableDS returns the DS records a validator uses: those of a supported
// algorithm and digest type, and, when one of them has a SHA-256 or
// SHA-384 digest, none with a SHA-1 digest (RFC 4509 §3, as BIND does),
// so that a SHA-1 DS cannot stand in for a stronger one that fails.
func usableDS(ds []*mdns.DS) []*mdns.DS {
	var usable []*mdns.DS
	strong := false
	for _, d := range ds {
		if algorithmSupported(d.Algorithm) && digestSupported(d.DigestType) {
			usable = append(usable, d)
			strong = strong || d.DigestType != mdns.SHA1
		}
	}
	if strong {
		usable = slices.DeleteFunc(usable, func(d *mdns.DS) bool { return d.DigestType == mdns.SHA1 })
	}
	return usable
}

// algorithmSupported is RFC 8624 §3.1's validation column: the algorithms
// a validator MUST (or here can) validate, Ed448 included. RSAMD5, DSA
// and GOST are not, and zones signed only with them are insecure.
func algorithmSupported(alg uint8) bool {
	switch alg {
	case mdns.RSASHA1, mdns.RSASHA1NSEC3SHA1, mdns.RSASHA256, mdns.RSASHA512,
		mdns.ECDSAP256SHA256, mdns.ECDSAP384SHA384, mdns.ED25519, mdns.ED448:
		return true
	}
	return false
}

// digestSupported is RFC 8624 §3.3's validation column: SHA-1, SHA-256
// and SHA-384; GOST is not.
func digestSupported(t uint8) bool {
	return t == mdns.SHA1 || t == mdns.SHA256 || t == mdns.SHA384
}

// verifyRRset judges every signature over rrset by a key of z and says
// whether one holds; when none does, why, naming each signature's fault.
// It stops after maxSignatureChecks verifications (KeyTrap).
func (v *validator) verifyRRset(z *zoneState, rrset []mdns.RR, sigs []*mdns.RRSIG) (bool, string) {
	h := rrset[0].Header()
	typ := mdns.TypeToString[h.Rrtype]
	if len(sigs) == 0 {
		return false, fmt.Sprintf("the %s RRset of %s is not signed", typ, hostName(h.Name))
	}
	tags := keyTags(z.keys)
	var problems []string
	checks := 0
	for _, sig := range sigs {
		if !strings.EqualFold(sig.SignerName, z.name) {
			problems = append(problems, fmt.Sprintf("the %s signature by key %d names signer %s, not %s", typ, sig.KeyTag, hostName(sig.SignerName), hostName(z.name)))
			continue
		}
		if int(sig.Labels) > mdns.CountLabel(h.Name) {
			problems = append(problems, fmt.Sprintf("the %s signature by key %d has more labels than its owner", typ, sig.KeyTag))
			continue
		}
		if !algorithmSupported(sig.Algorithm) {
			problems = append(problems, fmt.Sprintf("algorithm %d of the %s signature is not supported", sig.Algorithm, typ))
			continue
		}
		found := false
		for i, k := range z.keys {
			if tags[i] != sig.KeyTag || k.Algorithm != sig.Algorithm {
				continue
			}
			found = true
			if checks == maxSignatureChecks {
				return false, fmt.Sprintf("gave up on the %s RRset after %d signature checks: too many keys and signatures share a key tag", typ, checks)
			}
			checks++
			switch err := verifySignature(sig, k, rrset); {
			case err != nil:
				problems = append(problems, fmt.Sprintf("the %s signature by key %d does not verify", typ, sig.KeyTag))
			case !validAt(sig, v.now):
				problems = append(problems, validityReason(sig, typ, v.now))
			default:
				return true, ""
			}
		}
		if !found {
			problems = append(problems, fmt.Sprintf("no key of %s matches the %s signature's key tag %d", hostName(z.name), typ, sig.KeyTag))
		}
	}
	return false, strings.Join(problems, "; ")
}

// validAt reports whether now is inside sig's validity period, give or
// take signatureSkew (serial number arithmetic, RFC 4034 §3.1.5).
func validAt(sig *mdns.RRSIG, now time.Time) bool {
	return sig.ValidityPeriod(now.Add(signatureSkew)) || sig.ValidityPeriod(now.Add(-signatureSkew))
}

// answerTypes are the RRsets of the name that CheckDNSSEC validates.
var answerTypes = []uint16{mdns.TypeA, mdns.TypeAAAA, mdns.TypeMX, mdns.TypeTXT}

// verdict is the outcome for one answer.
type verdict struct {
	status Status
	reason string
	// zone is the zone whose answer failed, for an answer-level
	// verdict other than secure.
	zone string
}

// judgeAnswer validates the answer for name and qtype: the RRset with
// its CNAME and DNAME chain, or the proof that it does not exist.
// Aliases are followed before a denial is judged: an NXDOMAIN answer
// that carries a CNAME denies the CNAME's target, not name.
func (v *validator) judgeAnswer(ctx context.Context, name string, qtype uint16) (verdict, error) {
	name = mdns.CanonicalName(name)
	typ := mdns.TypeToString[qtype]
	for range maxCNAMEs {
		z, err := v.walk(ctx, name)
		if err != nil {
			return verdict{}, err
		}
		if z.status != Secure {
			return verdict{status: z.status, reason: z.reason}, nil
		}
		resp, err := v.query(ctx, name, qtype)
		if err != nil {
			return verdict{}, err
		}
		judged := func(d denial) verdict {
			what := fmt.Sprintf("the %s answer for %s", typ, hostName(name))
			return verdict{status: d.status, reason: prefixed(what, d.reason), zone: z.name}
		}
		if rrset := rrsOf[mdns.RR](resp.Answer, name, qtype); len(rrset) > 0 {
			return judged(v.checkRRset(z, resp, rrset)), nil
		}
		target, d := v.alias(z, resp, name)
		switch {
		case d.status != Secure:
			return judged(d), nil
		case target != "":
			name = target
			continue
		case resp.Rcode == mdns.RcodeNameError:
			return judged(v.proveNXDomain(z, resp, name)), nil
		}
		return judged(v.proveNoData(z, resp, name, qtype)), nil
	}
	return verdict{Indeterminate, fmt.Sprintf("more than %d aliases", maxCNAMEs), ""}, nil
}

// checkRRset checks the signatures over rrset, an RRset of resp's answer,
// by z's keys, and, when they say it was expanded from a wildcard, the
// proof that its owner does not exist.
func (v *validator) checkRRset(z *zoneState, resp *mdns.Msg, rrset []mdns.RR) denial {
	h := rrset[0].Header()
	sigs := sigsOver(resp.Answer, h.Name, h.Rrtype)
	if ok, why := v.verifyRRset(z, rrset, sigs); !ok {
		return denial{status: Bogus, reason: why}
	}
	// sigs[0] stands for all: they share the owner and labels when they
	// verify.
	if labels := int(sigs[0].Labels); labels < mdns.CountLabel(h.Name) {
		return v.proveWildcard(z, resp, h.Name, labels)
	}
	return denial{status: Secure}
}

// alias returns the name that resp's answer makes name an alias of, and
// whether that holds up: a CNAME of name signed by z, or a DNAME of an
// ancestor of name signed by z. The CNAME a server synthesises from a
// DNAME is unsigned by design (RFC 6672 §5.3.1, RFC 4035 §3.2.1) and is
// not trusted: the target is the DNAME's substitution whatever that
// CNAME says, as BIND and Unbound make it. The target is "" when name is
// no alias.
func (v *validator) alias(z *zoneState, resp *mdns.Msg, name string) (string, denial) {
	for _, rr := range resp.Answer {
		dname, ok := rr.(*mdns.DNAME)
		if !ok || !mdns.IsSubDomain(dname.Hdr.Name, name) || strings.EqualFold(dname.Hdr.Name, name) {
			continue
		}
		owner := mdns.CanonicalName(dname.Hdr.Name)
		if d := v.checkRRset(z, resp, rrsOf[mdns.RR](resp.Answer, owner, mdns.TypeDNAME)); d.status != Secure {
			return "", d
		}
		return substitute(name, owner, dname.Target), denial{status: Secure}
	}
	cname := rrsOf[mdns.RR](resp.Answer, name, mdns.TypeCNAME)
	if len(cname) == 0 {
		return "", denial{status: Secure}
	}
	if d := v.checkRRset(z, resp, cname); d.status != Secure {
		return "", d
	}
	return mdns.CanonicalName(cname[0].(*mdns.CNAME).Target), denial{status: Secure}
}

// substitute replaces the suffix owner of name with target, as a DNAME
// does (RFC 6672 §2.2).
func substitute(name, owner, target string) string {
	labels := mdns.SplitDomainName(name)
	prefix := strings.Join(labels[:len(labels)-mdns.CountLabel(owner)], ".")
	if target = mdns.CanonicalName(target); target == "." {
		return prefix + "."
	}
	return prefix + "." + target
}

func prefixed(what, reason string) string {
	if reason == "" {
		return ""
	}
	return what + ": " + reason
}
