package dns_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mdns "github.com/miekg/dns"

	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/dnstest"
)

// zoneRecords are the records of the signed test zone site.test.
var zoneRecords = []string{
	"site.test. 3600 IN SOA ns1.site.test. hostmaster.site.test. 1 7200 3600 1209600 300",
	"site.test. 3600 IN NS ns1.site.test.",
	"site.test. 300 IN A 192.0.2.1",
	"www.site.test. 300 IN A 192.0.2.1",
}

func signZone(t *testing.T, alg uint8, inception, expiration time.Time) *dnstest.Zone {
	t.Helper()
	z, err := dnstest.SignZone("site.test", alg, inception, expiration, zoneRecords...)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// anchorAt trusts z's own DS: the chain starts at the zone.
func anchorAt(t *testing.T, z *dnstest.Zone) *dns.TrustAnchor {
	t.Helper()
	a, err := dns.ParseTrustAnchor(z.DS.String())
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestCheckDNSSECRecordText(t *testing.T) {
	now := time.Now()
	z := signZone(t, mdns.ECDSAP256SHA256, now.Add(-time.Hour), now.Add(time.Hour))
	s := dnstest.Start(t)
	s.ServeZone(z)
	r := &dns.Resolver{Servers: []string{s.Addr}, Timeout: testTimeout}
	rep, err := r.CheckDNSSEC(context.Background(), "site.test", now)
	if err != nil {
		t.Fatal(err)
	}
	wantKeys := []string{
		"DNSKEY 257 3 13 " + z.KSK.DNSKEY.PublicKey,
		"DNSKEY 256 3 13 " + z.ZSK.DNSKEY.PublicKey,
	}
	if strings.Join(rep.DNSKEY, "\n") != strings.Join(wantKeys, "\n") {
		t.Errorf("dnskey: got %q, want %q", rep.DNSKEY, wantKeys)
	}
	keySig, soaSig := z.Signatures(mdns.TypeDNSKEY)[0], z.Signatures(mdns.TypeSOA)[0]
	wantSigs := []string{
		"RRSIG DNSKEY 13 2 3600 " + mdns.TimeToString(keySig.Expiration) + " " + mdns.TimeToString(keySig.Inception) + " " +
			strconv.Itoa(int(z.KSK.DNSKEY.KeyTag())) + " site.test. " + keySig.Signature,
		"RRSIG SOA 13 2 3600 " + mdns.TimeToString(soaSig.Expiration) + " " + mdns.TimeToString(soaSig.Inception) + " " +
			strconv.Itoa(int(z.ZSK.DNSKEY.KeyTag())) + " site.test. " + soaSig.Signature,
	}
	if strings.Join(rep.RRSIG, "\n") != strings.Join(wantSigs, "\n") {
		t.Errorf("rrsig:\ngot  %q\nwant %q", rep.RRSIG, wantSigs)
	}
}

func TestCheckDNSSECJudgesAtInjectedTime(t *testing.T) {
	inception := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	z := signZone(t, mdns.ED25519, inception, inception.AddDate(0, 1, 0))
	s := dnstest.Start(t)
	s.ServeZone(z)
	r := &dns.Resolver{Servers: []string{s.Addr}, Timeout: testTimeout, TrustAnchor: anchorAt(t, z)}
	for _, tc := range []struct {
		now    time.Time
		status dns.Status
		reason string
	}{
		{inception.AddDate(0, 0, 10), dns.Secure, ""},
		{inception.AddDate(0, 0, -1), dns.Bogus, "not valid before 2030-01-01 00:00:00 UTC"},
		{inception.AddDate(0, 2, 0), dns.Bogus, "expired at 2030-02-01 00:00:00 UTC"},
	} {
		rep, err := r.CheckDNSSEC(context.Background(), "site.test", tc.now)
		if err != nil {
			t.Fatal(err)
		}
		// The zone's own link: dnstest serves no NSEC records, so its
		// negative answers are not proven.
		if link := rep.Validation.Chain[0]; link.Status != tc.status || !strings.Contains(link.Reason, tc.reason) {
			t.Errorf("at %v: got %+v, want %s with %q", tc.now, link, tc.status, tc.reason)
		}
	}
}

func TestCheckDNSSECErrors(t *testing.T) {
	for _, rcode := range []int{mdns.RcodeServerFailure, mdns.RcodeRefused} {
		name := mdns.RcodeToString[rcode]
		t.Run(name, func(t *testing.T) {
			r := &dns.Resolver{Servers: []string{rcodeServer(t, rcode).Addr}, Timeout: testTimeout}
			_, err := r.CheckDNSSEC(context.Background(), "site.test", time.Now())
			var re *dns.RcodeError
			if !errors.As(err, &re) || re.Rcode != name {
				t.Fatalf("got %v, want an RcodeError %s", err, name)
			}
		})
	}
	t.Run("server never answers", func(t *testing.T) {
		r := &dns.Resolver{Servers: []string{silentServer(t)}, Timeout: testTimeout}
		start := time.Now()
		_, err := r.CheckDNSSEC(context.Background(), "site.test", time.Now())
		if !errors.Is(err, dns.ErrTimeout) {
			t.Fatalf("got %v, want ErrTimeout", err)
		}
		if elapsed := time.Since(start); elapsed > 10*testTimeout {
			t.Errorf("took %v, want about %v", elapsed, testTimeout)
		}
	})
}

func TestCheckDNSSECSetsDOAndCD(t *testing.T) {
	s := dnstest.Start(t)
	s.Add(t, zoneRecords...)
	var mu sync.Mutex
	var bad []string
	s.Handle(func(w mdns.ResponseWriter, req *mdns.Msg) {
		if opt := req.IsEdns0(); opt == nil || !opt.Do() || !req.CheckingDisabled {
			mu.Lock()
			bad = append(bad, mdns.TypeToString[req.Question[0].Qtype])
			mu.Unlock()
		}
		s.ServeRecords(w, req)
	})
	r := &dns.Resolver{Servers: []string{s.Addr}, Timeout: testTimeout}
	if _, err := r.CheckDNSSEC(context.Background(), "site.test", time.Now()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bad) > 0 {
		t.Errorf("queries without DO or CD: %v", bad)
	}
}

// A zone may publish more signatures sharing a key tag than any zone
// needs, so that a validator tries every one (KeyTrap): the check gives
// up after a bounded number of verifications, even when a later
// signature would verify.
func TestCheckDNSSECBoundsSignatureChecks(t *testing.T) {
	now := time.Now()
	z := signZone(t, mdns.ED25519, now.Add(-time.Hour), now.Add(time.Hour))
	s := dnstest.Start(t)
	valid := z.Signatures(mdns.TypeDNSKEY)[0]
	for i := range 40 {
		bad := mdns.Copy(valid).(*mdns.RRSIG)
		bad.Signature = strings.Repeat(string(rune('A'+i%26)), len(bad.Signature)-2) + "=="
		s.AddRR(bad) // served before the valid signature
	}
	s.ServeZone(z)
	r := &dns.Resolver{Servers: []string{s.Addr}, Timeout: testTimeout, TrustAnchor: anchorAt(t, z)}
	rep, err := r.CheckDNSSEC(context.Background(), "site.test", now)
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Validation; got.Status != dns.Bogus || got.DNSKEYSignatureValid == nil || *got.DNSKEYSignatureValid || !strings.Contains(got.Reason, "gave up") {
		t.Errorf("got %+v, want bogus: gave up before the valid signature", got)
	}
	if len(rep.RRSIG) != 42 {
		t.Errorf("got %d RRSIG, want all 42 listed", len(rep.RRSIG))
	}
}

// TestCheckDNSSECRemembersDeadServer: a first server that times out is
// asked once per request, not at every step of a long name.
func TestCheckDNSSECRemembersDeadServer(t *testing.T) {
	now := time.Now()
	z := signZone(t, mdns.ED25519, now.Add(-time.Hour), now.Add(time.Hour))
	s := dnstest.Start(t)
	s.AddRR(z.Records...)
	dead := dnstest.Start(t)
	dead.Handle(func(mdns.ResponseWriter, *mdns.Msg) {}) // never answers
	r := &dns.Resolver{Servers: []string{dead.Addr, s.Addr}, Timeout: 200 * time.Millisecond, TrustAnchor: anchorAt(t, z)}
	if _, err := r.CheckDNSSEC(context.Background(), "a.b.c.d.e.f.g.h.site.test", now); err != nil {
		t.Fatal(err)
	}
	if n := len(dead.Queries()); n != 1 {
		t.Errorf("the dead server got %d queries, want 1", n)
	}
}

// noRecursion clears the RA bit, as an authoritative-only server does.
type noRecursion struct{ mdns.ResponseWriter }

func (w noRecursion) WriteMsg(m *mdns.Msg) error {
	m.RecursionAvailable = false
	return w.ResponseWriter.WriteMsg(m)
}

// TestCheckDNSSECSaysWhenTheServerIsNotRecursive: an authoritative-only
// server cannot take the chain beyond its zones; the report says so
// instead of a verdict.
func TestCheckDNSSECSaysWhenTheServerIsNotRecursive(t *testing.T) {
	now := time.Now()
	z := signZone(t, mdns.ED25519, now.Add(-time.Hour), now.Add(time.Hour))
	s := dnstest.Start(t)
	s.AddRR(z.Records...)
	s.Handle(func(w mdns.ResponseWriter, req *mdns.Msg) { s.ServeRecords(noRecursion{w}, req) })
	r := &dns.Resolver{Servers: []string{s.Addr}, Timeout: testTimeout, TrustAnchor: anchorAt(t, z)}
	rep, err := r.CheckDNSSEC(context.Background(), "www.site.test", now)
	if err != nil {
		t.Fatal(err)
	}
	if v := rep.Validation; v.Status != dns.Indeterminate || !strings.Contains(v.Reason, "does not offer recursion") {
		t.Errorf("got %s (%s), want indeterminate: not recursive", v.Status, v.Reason)
	}
}
