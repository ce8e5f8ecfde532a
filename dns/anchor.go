package dns

import (
	"errors"
	"fmt"
	"os"
	"strings"

	mdns "github.com/miekg/dns"
)

// ErrTrustAnchor means a trust anchor could not be read: no DS or
// DNSKEY record, records of more than one owner, or a syntax error.
var ErrTrustAnchor = errors.New("dns: bad trust anchor")

// rootAnchorText is the IANA root zone's key-signing keys as DS records
// (KSK-2017, tag 20326, and KSK-2024, tag 38696), from
// https://data.iana.org/root-anchors/root-anchors.xml (public domain).
const rootAnchorText = `
. 0 IN DS 20326 8 2 E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7F8EC8D
. 0 IN DS 38696 8 2 683D2D0ACB8C9B712A1948B27F741219298D0A450D612C483AF444A4C0FB2B16
`

// TrustAnchor is where DNSSEC validation starts: the DS records (or the
// DNSKEYs, turned into SHA-256 DS records) of one zone, trusted without
// proof. Validation follows the chain from its zone down to a name.
type TrustAnchor struct {
	zone string
	ds   []*mdns.DS
}

// Zone is the anchor's zone, such as "." for the root.
func (a *TrustAnchor) Zone() string { return a.zone }

// RootTrustAnchor returns the IANA root trust anchor built in: the DS
// records of the root KSKs 20326 and 38696.
func RootTrustAnchor() *TrustAnchor {
	a, err := ParseTrustAnchor(rootAnchorText)
	if err != nil {
		panic(err) // the built-in text is constant
	}
	return a
}

// ParseTrustAnchor reads a trust anchor in zone-file form: DS or DNSKEY
// records of one owner ("example. IN DS 12345 13 2 ...", as dig prints
// them, or as in a dsset- or .key file). Other records and comments are
// ignored. The error wraps ErrTrustAnchor.
func ParseTrustAnchor(text string) (*TrustAnchor, error) {
	zp := mdns.NewZoneParser(strings.NewReader(text), ".", "")
	a := &TrustAnchor{}
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		owner := mdns.CanonicalName(rr.Header().Name)
		var ds *mdns.DS
		switch rr := rr.(type) {
		case *mdns.DS:
			ds = rr
		case *mdns.DNSKEY:
			ds = rr.ToDS(mdns.SHA256)
		default:
			continue
		}
		if a.zone != "" && a.zone != owner {
			return nil, fmt.Errorf("%w: records of both %s and %s", ErrTrustAnchor, a.zone, owner)
		}
		a.zone = owner
		a.ds = append(a.ds, ds)
	}
	if err := zp.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTrustAnchor, err)
	}
	if len(a.ds) == 0 {
		return nil, fmt.Errorf("%w: no DS or DNSKEY record", ErrTrustAnchor)
	}
	return a, nil
}

// ReadTrustAnchor reads a trust anchor file with ParseTrustAnchor.
func ReadTrustAnchor(path string) (*TrustAnchor, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTrustAnchor, err)
	}
	return ParseTrustAnchor(string(b))
}
