package dns

import (
	"crypto/ed25519"
	"encoding/base64"
	"testing"
	"time"

	mdns "github.com/miekg/dns"

	"github.com/sitediag/sitediag/internal/dnstest"
)

// TestSignedDataMatchesMiekg: the data signedData builds for Ed448 is
// the data miekg/dns signs, checked through Ed25519, which signs the
// same raw data: owners and RDATA names in mixed case, records whose
// RDATA order differs from their length order, duplicates, and an RRset
// expanded from a wildcard.
func TestSignedDataMatchesMiekg(t *testing.T) {
	now := time.Now()
	key, err := dnstest.NewKey("Site.Test", dnstest.FlagsZSK, mdns.ED25519)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := base64.StdEncoding.DecodeString(key.DNSKEY.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	sets := map[string][]string{
		"mixed case":                      {"WWW.Site.Test. 300 IN MX 10 Mail.Site.Test.", "WWW.Site.Test. 300 IN MX 20 Backup.Site.TEST."},
		"RDATA order is not length order": {`t.site.test. 300 IN TXT "ab"`, `t.site.test. 300 IN TXT "z" "z"`, `t.site.test. 300 IN TXT "ab"`},
		"wildcard":                        {"*.site.test. 300 IN A 192.0.2.1", "*.site.test. 300 IN A 192.0.2.2"},
	}
	for name, records := range sets {
		t.Run(name, func(t *testing.T) {
			var rrset []mdns.RR
			for _, text := range records {
				rr, err := mdns.NewRR(text)
				if err != nil {
					t.Fatal(err)
				}
				rrset = append(rrset, rr)
			}
			sig, err := key.Sign(rrset, now.Add(-time.Hour), now.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if name == "wildcard" {
				// Served as the expansion for a.b.site.test, with a TTL
				// counted down.
				for _, rr := range rrset {
					rr.Header().Name, rr.Header().Ttl = "a.b.site.test.", 120
				}
				sig.Hdr.Name = "a.b.site.test."
			}
			if err := sig.Verify(key.DNSKEY, rrset); err != nil {
				t.Fatalf("miekg/dns does not verify its own signature: %v", err)
			}
			data, err := signedData(sig, rrset)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := base64.StdEncoding.DecodeString(sig.Signature)
			if !ed25519.Verify(pub, data, raw) {
				t.Errorf("the signature does not verify over signedData's %d bytes", len(data))
			}
		})
	}
}
