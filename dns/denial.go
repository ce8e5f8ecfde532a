package dns

import (
	"fmt"
	"slices"
	"strings"

	mdns "github.com/miekg/dns"
)

// denial is the outcome of checking an authenticated denial of existence.
type denial struct {
	// status: Secure when proven, Insecure when an NSEC3 opt-out span
	// or an iteration count over the limit leaves it unproven but
	// allowed, Bogus otherwise.
	status Status
	reason string
	// delegation: the name's NSEC or NSEC3 has NS and not SOA.
	delegation bool
}

// nsecSets returns the NSEC and NSEC3 records of resp's authority
// section whose signatures by zone z hold, and the faults of the others.
func (v *validator) nsecSets(z *zoneState, resp *mdns.Msg) ([]*mdns.NSEC, []*mdns.NSEC3, []string) {
	var nsecs []*mdns.NSEC
	var nsec3s []*mdns.NSEC3
	var faults []string
	seen := map[question]bool{}
	for _, rr := range resp.Ns {
		h := rr.Header()
		if h.Rrtype != mdns.TypeNSEC && h.Rrtype != mdns.TypeNSEC3 {
			continue
		}
		q := question{mdns.CanonicalName(h.Name), h.Rrtype}
		if seen[q] {
			continue
		}
		seen[q] = true
		set := []mdns.RR{}
		for _, o := range resp.Ns {
			if o.Header().Rrtype == h.Rrtype && strings.EqualFold(o.Header().Name, h.Name) {
				set = append(set, o)
			}
		}
		if ok, why := v.verifyRRset(z, set, sigsOver(resp.Ns, h.Name, h.Rrtype)); !ok {
			faults = append(faults, why)
			continue
		}
		for _, o := range set {
			switch o := o.(type) {
			case *mdns.NSEC:
				nsecs = append(nsecs, o)
			case *mdns.NSEC3:
				nsec3s = append(nsec3s, o)
			}
		}
	}
	return nsecs, nsec3s, faults
}

func unproven(what string, faults []string) denial {
	if len(faults) > 0 {
		what += ": " + strings.Join(faults, "; ")
	}
	return denial{status: Bogus, reason: what}
}

// proveNoData checks that resp proves name exists without qtype.
func (v *validator) proveNoData(z *zoneState, resp *mdns.Msg, name string, qtype uint16) denial {
	nsecs, nsec3s, faults := v.nsecSets(z, resp)
	typ := mdns.TypeToString[qtype]
	for _, n := range nsecs {
		if strings.EqualFold(n.Hdr.Name, name) {
			if slices.Contains(n.TypeBitMap, qtype) || (qtype != mdns.TypeDS && slices.Contains(n.TypeBitMap, mdns.TypeCNAME)) {
				return denial{status: Bogus, reason: fmt.Sprintf("the NSEC record of %s lists %s", hostName(name), typ)}
			}
			return denial{status: Secure, delegation: delegationBitmap(n.TypeBitMap)}
		}
		// An empty non-terminal: an NSEC covers it and leads below it.
		if nsecCovers(n, name) && mdns.IsSubDomain(name, n.NextDomain) {
			return denial{status: Secure}
		}
	}
	if d, ok := wildcardNoData(nsecs, nsec3s, name, z.name, qtype); ok {
		return d
	}
	if len(nsec3s) > 0 {
		if d, ok := nsec3Limits(nsec3s); !ok {
			return d
		}
		for _, n := range nsec3s {
			if n.Match(name) {
				if slices.Contains(n.TypeBitMap, qtype) || (qtype != mdns.TypeDS && slices.Contains(n.TypeBitMap, mdns.TypeCNAME)) {
					return denial{status: Bogus, reason: fmt.Sprintf("the NSEC3 record of %s lists %s", hostName(name), typ)}
				}
				return denial{status: Secure, delegation: delegationBitmap(n.TypeBitMap)}
			}
		}
		if qtype == mdns.TypeDS {
			// No NSEC3 for name: an opt-out span covering it (RFC 5155 §8.6).
			if ce, cover := closestEncloser(nsec3s, name, z.name); ce != "" && cover != nil && cover.Flags&1 == 1 {
				return denial{status: Insecure, reason: fmt.Sprintf("%s is inside an NSEC3 opt-out span of %s, so its delegation is unsigned", hostName(name), hostName(z.name))}
			}
		}
	}
	return unproven(fmt.Sprintf("no NSEC or NSEC3 record of %s proves that %s has no %s record", hostName(z.name), hostName(name), typ), faults)
}

// proveNXDomain checks that resp proves name does not exist: the name
// and the wildcard at its closest encloser are covered.
func (v *validator) proveNXDomain(z *zoneState, resp *mdns.Msg, name string) denial {
	nsecs, nsec3s, faults := v.nsecSets(z, resp)
	for _, n := range nsecs {
		if !nsecCovers(n, name) {
			continue
		}
		ce := nsecEncloser(n, name)
		wildcard := "*." + ce
		if ce == "." {
			wildcard = "*."
		}
		for _, w := range nsecs {
			if nsecCovers(w, wildcard) {
				return denial{status: Secure}
			}
		}
		return unproven(fmt.Sprintf("no NSEC record proves that the wildcard %s does not exist", wildcard), faults)
	}
	if len(nsec3s) > 0 {
		if d, ok := nsec3Limits(nsec3s); !ok {
			return d
		}
		ce, cover := closestEncloser(nsec3s, name, z.name)
		if ce != "" && cover != nil {
			if cover.Flags&1 == 1 {
				return denial{status: Insecure, reason: fmt.Sprintf("%s is inside an NSEC3 opt-out span of %s", hostName(name), hostName(z.name))}
			}
			wildcard := "*." + ce
			for _, n := range nsec3s {
				if n.Cover(wildcard) {
					return denial{status: Secure}
				}
			}
			return unproven(fmt.Sprintf("no NSEC3 record proves that the wildcard %s does not exist", wildcard), faults)
		}
	}
	return unproven(fmt.Sprintf("no NSEC or NSEC3 record of %s proves that %s does not exist", hostName(z.name), hostName(name)), faults)
}

// proveWildcard checks that a wildcard answer for name was allowed:
// name itself does not exist (RFC 4035 §5.3.4).
func (v *validator) proveWildcard(z *zoneState, resp *mdns.Msg, name string, sigLabels int) denial {
	nsecs, nsec3s, faults := v.nsecSets(z, resp)
	for _, n := range nsecs {
		if nsecCovers(n, name) {
			return denial{status: Secure}
		}
	}
	if len(nsec3s) > 0 {
		if d, ok := nsec3Limits(nsec3s); !ok {
			return d
		}
		// The next closer name below the wildcard's parent must be covered.
		labels := mdns.SplitDomainName(name)
		next := mdns.Fqdn(strings.Join(labels[len(labels)-sigLabels-1:], "."))
		for _, n := range nsec3s {
			if n.Cover(next) {
				return denial{status: Secure}
			}
		}
	}
	return unproven(fmt.Sprintf("the answer for %s was expanded from a wildcard, but nothing proves that %s does not exist", hostName(name), hostName(name)), faults)
}

// nsec3Limits checks the NSEC3 parameters: SHA-1 and at most
// maxNSEC3Iterations iterations (RFC 9276), else the answer is insecure.
func nsec3Limits(nsec3s []*mdns.NSEC3) (denial, bool) {
	for _, n := range nsec3s {
		if n.Hash != mdns.SHA1 {
			return denial{status: Insecure, reason: fmt.Sprintf("NSEC3 hash algorithm %d is not supported", n.Hash)}, false
		}
		if n.Iterations > maxNSEC3Iterations {
			return denial{status: Insecure, reason: fmt.Sprintf("NSEC3 uses %d iterations, above the limit of %d (RFC 9276), so the denial is treated as insecure", n.Iterations, maxNSEC3Iterations)}, false
		}
	}
	return denial{}, true
}

// closestEncloser finds the closest encloser proof for name (RFC 5155
// §7.2.1): the longest ancestor with a matching NSEC3 and the NSEC3 that
// covers the next closer name.
func closestEncloser(nsec3s []*mdns.NSEC3, name, zone string) (string, *mdns.NSEC3) {
	labels := mdns.SplitDomainName(name)
	for i := 1; i <= len(labels); i++ {
		ce := "."
		if i < len(labels) {
			ce = mdns.Fqdn(strings.Join(labels[i:], "."))
		}
		if !mdns.IsSubDomain(zone, ce) {
			return "", nil
		}
		matched := false
		for _, n := range nsec3s {
			matched = matched || n.Match(ce)
		}
		if !matched {
			continue
		}
		next := mdns.Fqdn(strings.Join(labels[i-1:], "."))
		for _, n := range nsec3s {
			if n.Cover(next) {
				return ce, n
			}
		}
		return ce, nil
	}
	return "", nil
}

func delegationBitmap(types []uint16) bool {
	return slices.Contains(types, mdns.TypeNS) && !slices.Contains(types, mdns.TypeSOA)
}

// nsecCovers reports whether name falls strictly between n's owner and
// its next name in canonical order, the last NSEC wrapping to the apex.
func nsecCovers(n *mdns.NSEC, name string) bool {
	owner, next := n.Hdr.Name, n.NextDomain
	if canonicalCompare(owner, next) < 0 {
		return canonicalCompare(owner, name) < 0 && canonicalCompare(name, next) < 0
	}
	return canonicalCompare(owner, name) < 0 && mdns.IsSubDomain(next, name)
}

// canonicalCompare orders names as RFC 4034 §6.1 does: by labels from
// the right, each compared as lower-cased bytes.
func canonicalCompare(a, b string) int {
	la, lb := mdns.SplitDomainName(strings.ToLower(a)), mdns.SplitDomainName(strings.ToLower(b))
	for i, j := len(la)-1, len(lb)-1; i >= 0 && j >= 0; i, j = i-1, j-1 {
		if c := strings.Compare(unescapeLabel(la[i]), unescapeLabel(lb[j])); c != 0 {
			return c
		}
	}
	return len(la) - len(lb)
}

// unescapeLabel turns a label's presentation escapes (\. and \DDD) into
// the bytes they stand for.
func unescapeLabel(l string) string {
	if !strings.Contains(l, `\`) {
		return l
	}
	var b strings.Builder
	for i := 0; i < len(l); i++ {
		if l[i] == '\\' && i+3 < len(l) && isDigits(l[i+1:i+4]) {
			b.WriteByte(byte((int(l[i+1]-'0'))*100 + int(l[i+2]-'0')*10 + int(l[i+3]-'0')))
			i += 3
			continue
		}
		if l[i] == '\\' && i+1 < len(l) {
			i++
		}
		b.WriteByte(l[i])
	}
	return b.String()
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// commonAncestor is the longest name both a and b are under.
func commonAncestor(a, b string) string {
	n := mdns.CompareDomainName(a, b)
	labels := mdns.SplitDomainName(a)
	if n == 0 {
		return "."
	}
	return mdns.Fqdn(strings.Join(labels[len(labels)-n:], "."))
}

// nsecEncloser is the closest encloser of name that n, an NSEC covering
// name, proves: the longer of name's common ancestors with n's owner
// and with its next name.
func nsecEncloser(n *mdns.NSEC, name string) string {
	ce := commonAncestor(name, n.Hdr.Name)
	if a := commonAncestor(name, n.NextDomain); mdns.CountLabel(a) > mdns.CountLabel(ce) {
		ce = a
	}
	return ce
}

// wildcardNoData checks a NODATA answer from a wildcard (RFC 4035
// §3.1.3.4): name is covered, and the wildcard at its closest encloser
// exists without qtype.
func wildcardNoData(nsecs []*mdns.NSEC, nsec3s []*mdns.NSEC3, name, zone string, qtype uint16) (denial, bool) {
	lacks := func(types []uint16) bool {
		return !slices.Contains(types, qtype) && !slices.Contains(types, mdns.TypeCNAME)
	}
	for _, n := range nsecs {
		if !nsecCovers(n, name) {
			continue
		}
		ce := nsecEncloser(n, name)
		for _, w := range nsecs {
			if strings.EqualFold(w.Hdr.Name, "*."+ce) && lacks(w.TypeBitMap) {
				return denial{status: Secure}, true
			}
		}
	}
	if ce, cover := closestEncloser(nsec3s, name, zone); ce != "" && cover != nil {
		for _, w := range nsec3s {
			if w.Match("*."+ce) && lacks(w.TypeBitMap) {
				return denial{status: Secure}, true
			}
		}
	}
	return denial{}, false
}
