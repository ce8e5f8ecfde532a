package dns

import (
	"bytes"
	"encoding/base64"
	"errors"
	"slices"
	"strings"

	"github.com/cloudflare/circl/sign/ed448"
	mdns "github.com/miekg/dns"
)

// verifySignature checks sig over rrset with key k. miekg/dns verifies
// every algorithm validatorSupports but Ed448 (RFC 8080), which is
// verified here with cloudflare/circl.
func verifySignature(sig *mdns.RRSIG, k *mdns.DNSKEY, rrset []mdns.RR) error {
	err := sig.Verify(k, rrset)
	if sig.Algorithm != mdns.ED448 || !errors.Is(err, mdns.ErrAlg) {
		return err
	}
	// miekg/dns answers ErrAlg only once the key, the signer and the
	// RRset have passed its checks: what is left is the cryptography.
	pub, err := base64.StdEncoding.DecodeString(k.PublicKey)
	if err != nil || len(pub) != ed448.PublicKeySize {
		return mdns.ErrKey
	}
	sigBytes, err := base64.StdEncoding.DecodeString(sig.Signature)
	if err != nil {
		return mdns.ErrSig
	}
	data, err := signedData(sig, rrset)
	if err != nil {
		return err
	}
	if !ed448.Verify(pub, data, sigBytes, "") {
		return mdns.ErrSig
	}
	return nil
}

// signedData is what sig signs over rrset (RFC 4034 §3.1.8.1, RFC 4035
// §5.3.2): sig's RDATA without the signature, then the RRset's records
// in canonical form (RFC 4034 §6.2, as corrected by RFC 6840 §5.1) and
// canonical order, duplicates dropped.
func signedData(sig *mdns.RRSIG, rrset []mdns.RR) ([]byte, error) {
	head := mdns.Copy(sig).(*mdns.RRSIG)
	head.Hdr.Name, head.Signature = ".", ""
	head.SignerName = mdns.CanonicalName(head.SignerName)
	data, err := packed(head)
	if err != nil {
		return nil, err
	}
	// Cut the header: the root owner (1 byte), type, class, TTL and
	// RDATA length (10 bytes).
	data = data[11:]
	wires := make([][]byte, 0, len(rrset))
	var rdataStart int
	for _, rr := range rrset {
		c := mdns.Copy(rr)
		h := c.Header()
		h.Ttl = sig.OrigTtl
		if labels := mdns.SplitDomainName(h.Name); len(labels) > int(sig.Labels) {
			// Expanded from a wildcard: the owner signed is the wildcard.
			h.Name = "*." + strings.Join(labels[len(labels)-int(sig.Labels):], ".") + "."
		}
		h.Name = mdns.CanonicalName(h.Name)
		lowerRdataNames(c)
		w, err := packed(c)
		if err != nil {
			return nil, err
		}
		wires = append(wires, w)
		owner, err := mdns.PackDomainName(h.Name, make([]byte, 256), 0, nil, false)
		if err != nil {
			return nil, err
		}
		rdataStart = owner + 10 // type, class, TTL, RDATA length
	}
	// Records of one RRset share the canonical owner, type, class and
	// TTL; they sort by their RDATA, after the header.
	slices.SortFunc(wires, func(a, b []byte) int { return bytes.Compare(a[rdataStart:], b[rdataStart:]) })
	for i, w := range wires {
		if i == 0 || !bytes.Equal(w, wires[i-1]) {
			data = append(data, w...)
		}
	}
	return data, nil
}

// packed is rr in uncompressed wire form.
func packed(rr mdns.RR) ([]byte, error) {
	buf := make([]byte, mdns.Len(rr)+1)
	n, err := mdns.PackRR(rr, buf, 0, nil, false)
	return buf[:n], err
}

// lowerRdataNames lowercases the domain names in rr's RDATA for the types
// RFC 4034 §6.2 lists and RFC 6840 §5.1 keeps (not NSEC, RRSIG, HINFO);
// the obsolete MD, MF, MB, MG, MR, MINFO, SIG, NXT and A6 are not served
// in signed zones and are left as they are.
func lowerRdataNames(rr mdns.RR) {
	switch x := rr.(type) {
	case *mdns.NS:
		x.Ns = mdns.CanonicalName(x.Ns)
	case *mdns.CNAME:
		x.Target = mdns.CanonicalName(x.Target)
	case *mdns.SOA:
		x.Ns, x.Mbox = mdns.CanonicalName(x.Ns), mdns.CanonicalName(x.Mbox)
	case *mdns.PTR:
		x.Ptr = mdns.CanonicalName(x.Ptr)
	case *mdns.MX:
		x.Mx = mdns.CanonicalName(x.Mx)
	case *mdns.RP:
		x.Mbox, x.Txt = mdns.CanonicalName(x.Mbox), mdns.CanonicalName(x.Txt)
	case *mdns.AFSDB:
		x.Hostname = mdns.CanonicalName(x.Hostname)
	case *mdns.RT:
		x.Host = mdns.CanonicalName(x.Host)
	case *mdns.PX:
		x.Map822, x.Mapx400 = mdns.CanonicalName(x.Map822), mdns.CanonicalName(x.Mapx400)
	case *mdns.NAPTR:
		x.Replacement = mdns.CanonicalName(x.Replacement)
	case *mdns.KX:
		x.Exchanger = mdns.CanonicalName(x.Exchanger)
	case *mdns.SRV:
		x.Target = mdns.CanonicalName(x.Target)
	case *mdns.DNAME:
		x.Target = mdns.CanonicalName(x.Target)
	}
}
