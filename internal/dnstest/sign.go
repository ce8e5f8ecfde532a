package dnstest

import (
	"crypto"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mdns "github.com/miekg/dns"
)

// Key flags (RFC 4034 §2.1.1).
const (
	// FlagsKSK marks a key-signing key: a zone key with the SEP bit.
	FlagsKSK = mdns.ZONE | mdns.SEP
	// FlagsZSK marks a zone-signing key.
	FlagsZSK = mdns.ZONE
)

// Key is a DNSSEC key pair that signs test zones.
type Key struct {
	// DNSKEY is the public half, as the zone publishes it.
	DNSKEY *mdns.DNSKEY
	signer crypto.Signer
}

// NewKey generates a key for zone with flags (FlagsKSK or FlagsZSK) and
// algorithm (mdns.ECDSAP256SHA256, mdns.ED25519, …).
func NewKey(zone string, flags uint16, algorithm uint8) (*Key, error) {
	k := &mdns.DNSKEY{
		Hdr:       mdns.RR_Header{Name: mdns.Fqdn(zone), Rrtype: mdns.TypeDNSKEY, Class: mdns.ClassINET, Ttl: 3600},
		Flags:     flags,
		Protocol:  3,
		Algorithm: algorithm,
	}
	bits := 256
	if algorithm == mdns.ECDSAP384SHA384 {
		bits = 384
	}
	priv, err := k.Generate(bits)
	if err != nil {
		return nil, fmt.Errorf("dnstest: generating a key: %w", err)
	}
	signer, ok := priv.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("dnstest: algorithm %d gives no crypto.Signer", algorithm)
	}
	return &Key{DNSKEY: k, signer: signer}, nil
}

// Sign returns the signature of rrset (one owner, type and class), valid
// from inception to expiration.
func (k *Key) Sign(rrset []mdns.RR, inception, expiration time.Time) (*mdns.RRSIG, error) {
	sig := &mdns.RRSIG{
		Hdr:        mdns.RR_Header{Ttl: rrset[0].Header().Ttl},
		Algorithm:  k.DNSKEY.Algorithm,
		KeyTag:     k.DNSKEY.KeyTag(),
		SignerName: k.DNSKEY.Hdr.Name,
		Inception:  uint32(inception.Unix()),
		Expiration: uint32(expiration.Unix()),
	}
	if err := sig.Sign(k.signer, rrset); err != nil {
		return nil, fmt.Errorf("dnstest: signing %s: %w", rrset[0].Header().Name, err)
	}
	return sig, nil
}

// DS returns the SHA-256 DS record of the key, as the parent publishes it.
func (k *Key) DS() *mdns.DS { return k.DNSKEY.ToDS(mdns.SHA256) }

// Zone is a signed zone: the records to serve and the DS for the parent.
type Zone struct {
	// KSK signs the DNSKEY RRset; ZSK signs every other RRset.
	KSK, ZSK *Key
	// Records are the zone's records, its DNSKEY RRset and the RRSIGs
	// over every RRset. A test may alter them before serving them.
	Records []mdns.RR
	// DS matches the KSK; serve it to make the zone secure.
	DS *mdns.DS
}

// Signatures returns the RRSIGs in z.Records that cover rtype.
func (z *Zone) Signatures(rtype uint16) []*mdns.RRSIG {
	var out []*mdns.RRSIG
	for _, rr := range z.Records {
		if sig, ok := rr.(*mdns.RRSIG); ok && sig.TypeCovered == rtype {
			out = append(out, sig)
		}
	}
	return out
}

// SignZone parses records (zone-file lines at or below name), generates
// a KSK and a ZSK with algorithm and signs every RRset, each signature
// valid from inception to expiration.
func SignZone(name string, algorithm uint8, inception, expiration time.Time, records ...string) (*Zone, error) {
	ksk, err := NewKey(name, FlagsKSK, algorithm)
	if err != nil {
		return nil, err
	}
	zsk, err := NewKey(name, FlagsZSK, algorithm)
	if err != nil {
		return nil, err
	}
	z := &Zone{KSK: ksk, ZSK: zsk, DS: ksk.DS()}
	type rrset struct {
		name  string
		rtype uint16
	}
	sets := map[rrset][]mdns.RR{}
	var order []rrset
	for _, text := range records {
		rr, err := mdns.NewRR(text)
		if err != nil {
			return nil, fmt.Errorf("dnstest: %q: %w", text, err)
		}
		set := rrset{strings.ToLower(rr.Header().Name), rr.Header().Rrtype}
		if sets[set] == nil {
			order = append(order, set)
		}
		sets[set] = append(sets[set], rr)
	}
	keys := []mdns.RR{ksk.DNSKEY, zsk.DNSKEY}
	sig, err := ksk.Sign(keys, inception, expiration)
	if err != nil {
		return nil, err
	}
	z.Records = append(keys, sig)
	for _, set := range order {
		if sig, err = zsk.Sign(sets[set], inception, expiration); err != nil {
			return nil, err
		}
		z.Records = append(z.Records, sets[set]...)
		z.Records = append(z.Records, sig)
	}
	return z, nil
}

// SignSite signs site.test (an SOA, A, AAAA, MX and TXT record) with
// ECDSA P-256, each signature valid from inception to expiration, and
// writes its DS to a trust-anchor file in t's temporary directory. It
// returns the zone and the file's path; serve the zone with ServeZone.
func SignSite(t testing.TB, inception, expiration time.Time) (*Zone, string) {
	t.Helper()
	zone, err := SignZone("site.test", mdns.ECDSAP256SHA256, inception, expiration,
		"site.test. 3600 IN SOA ns1.site.test. hostmaster.site.test. 1 7200 3600 1209600 300",
		"site.test. 300 IN A 192.0.2.1",
		"site.test. 300 IN AAAA 2001:db8::1",
		"site.test. 300 IN MX 10 mail.site.test.",
		`site.test. 300 IN TXT "v=spf1 -all"`)
	if err != nil {
		t.Fatal(err)
	}
	anchor := filepath.Join(t.TempDir(), "anchor")
	if err := os.WriteFile(anchor, []byte(zone.DS.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return zone, anchor
}

// ServeZone serves z's records and its DS, which makes it secure under
// a root that trusts nothing else.
func (s *Server) ServeZone(z *Zone) {
	s.AddRR(z.Records...)
	s.AddRR(z.DS)
}
