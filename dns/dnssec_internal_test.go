package dns

import (
	"context"
	"testing"
	"time"

	mdns "github.com/miekg/dns"

	"github.com/sitediag/sitediag/internal/dnstest"
)

// FuzzValidate judges hostile DNSSEC answers: whatever the records, the
// verdict must come without a panic and say why.
func FuzzValidate(f *testing.F) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, alg := range []uint8{mdns.ECDSAP256SHA256, mdns.ED25519} {
		z, err := dnstest.SignZone("site.test", alg, now.Add(-time.Hour), now.Add(time.Hour),
			"site.test. 3600 IN SOA ns1.site.test. hostmaster.site.test. 1 7200 3600 1209600 300")
		if err != nil {
			f.Fatal(err)
		}
		m := new(mdns.Msg)
		m.Answer = append(z.Records, z.DS)
		wire, err := m.Pack()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(wire)
	}
	f.Fuzz(func(t *testing.T, wire []byte) {
		m := new(mdns.Msg)
		if m.Unpack(wire) != nil || len(m.Answer) == 0 {
			return
		}
		zone := mdns.CanonicalName(m.Answer[0].Header().Name)
		ds := rrsOf[*mdns.DS](m.Answer, zone, mdns.TypeDS)
		m.Ns = m.Answer
		v := &validator{now: now, cache: map[question]*mdns.Msg{{zone, mdns.TypeDNSKEY}: m}, zones: map[string]*zoneState{}}
		z, err := v.enterZone(context.Background(), zone, ds, nil, true)
		if err != nil || z.status == "" || (z.status != Secure && z.reason == "") {
			t.Fatalf("got %+v, %v, want a status and a reason", z, err)
		}
		for _, d := range []denial{v.proveNoData(z, m, "a."+zone, mdns.TypeA), v.proveNXDomain(z, m, "a."+zone)} {
			if d.status == "" || (d.status != Secure && d.reason == "") {
				t.Fatalf("got %+v, want a status and a reason", d)
			}
		}
	})
}
