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

var algorithms = []struct {
	name string
	alg  uint8
}{
	{"ECDSAP256SHA256", mdns.ECDSAP256SHA256},
	{"ED25519", mdns.ED25519},
}

func signZone(t *testing.T, alg uint8, inception, expiration time.Time) *dnstest.Zone {
	t.Helper()
	z, err := dnstest.SignZone("site.test", alg, inception, expiration, zoneRecords...)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// tamper flips a bit of each signature over rtype.
func tamper(t *testing.T, z *dnstest.Zone, rtype uint16) {
	t.Helper()
	for _, sig := range z.Signatures(rtype) {
		b := []byte(sig.Signature)
		if b[0] == 'A' {
			b[0] = 'B'
		} else {
			b[0] = 'A'
		}
		sig.Signature = string(b)
	}
}

func TestCheckDNSSEC(t *testing.T) {
	now := time.Now()
	valid := func(t *testing.T, alg uint8) *dnstest.Zone {
		return signZone(t, alg, now.Add(-time.Hour), now.Add(24*time.Hour))
	}
	tests := []struct {
		name string
		// zone builds what the server holds; ds says whether to serve
		// the zone's own DS.
		zone    func(t *testing.T, alg uint8) *dnstest.Zone
		ds      bool
		extra   func(t *testing.T, s *dnstest.Server, alg uint8)
		host    string
		enabled bool
		want    dns.Validation
		reason  string
	}{
		{
			name: "secure", zone: valid, ds: true, enabled: true,
			want: dns.Validation{Status: dns.Secure, DNSKEYSignatureValid: true, DSMatchesKSK: true},
		},
		{
			name: "secure, asked for a name inside the zone", zone: valid, ds: true, host: "www.site.test", enabled: true,
			want: dns.Validation{Status: dns.Secure, DNSKEYSignatureValid: true, DSMatchesKSK: true},
		},
		{
			name: "tampered DNSKEY signature",
			zone: func(t *testing.T, alg uint8) *dnstest.Zone {
				z := valid(t, alg)
				tamper(t, z, mdns.TypeDNSKEY)
				return z
			},
			ds: true, enabled: true,
			want:   dns.Validation{Status: dns.Bogus, DSMatchesKSK: true},
			reason: "does not verify",
		},
		{
			name: "tampered SOA signature",
			zone: func(t *testing.T, alg uint8) *dnstest.Zone {
				z := valid(t, alg)
				tamper(t, z, mdns.TypeSOA)
				return z
			},
			ds: true, enabled: true,
			want:   dns.Validation{Status: dns.Bogus, DNSKEYSignatureValid: true, DSMatchesKSK: true},
			reason: "SOA signature",
		},
		{
			name: "expired signatures",
			zone: func(t *testing.T, alg uint8) *dnstest.Zone {
				return signZone(t, alg, now.Add(-30*24*time.Hour), now.Add(-24*time.Hour))
			},
			ds: true, enabled: true,
			want:   dns.Validation{Status: dns.Bogus, DSMatchesKSK: true},
			reason: "expired",
		},
		{
			name: "DS matching no key", zone: valid, enabled: true,
			extra: func(t *testing.T, s *dnstest.Server, alg uint8) {
				other, err := dnstest.NewKey("site.test", dnstest.FlagsKSK, alg)
				if err != nil {
					t.Fatal(err)
				}
				s.AddRR(other.DS())
			},
			want:   dns.Validation{Status: dns.Bogus, DNSKEYSignatureValid: true},
			reason: "no DS record",
		},
		{
			name: "signed but no DS at the parent", zone: valid, enabled: true,
			want:   dns.Validation{Status: dns.Insecure, DNSKEYSignatureValid: true},
			reason: "no DS",
		},
		{
			name: "unsigned zone",
			extra: func(t *testing.T, s *dnstest.Server, alg uint8) {
				s.Add(t, zoneRecords...)
			},
			want:   dns.Validation{Status: dns.Insecure},
			reason: "no DNSKEY",
		},
		{
			name: "DS but no DNSKEY",
			extra: func(t *testing.T, s *dnstest.Server, alg uint8) {
				s.Add(t, zoneRecords...)
				s.AddRR(valid(t, alg).DS)
			},
			want:   dns.Validation{Status: dns.Bogus},
			reason: "no DNSKEY",
		},
		{
			name: "name that does not exist", zone: valid, ds: true, host: "missing.site.test",
			want:   dns.Validation{Status: dns.Indeterminate},
			reason: "NXDOMAIN",
		},
	}
	for _, a := range algorithms {
		for _, tt := range tests {
			t.Run(a.name+"/"+tt.name, func(t *testing.T) {
				s := dnstest.Start(t)
				if tt.zone != nil {
					z := tt.zone(t, a.alg)
					s.AddRR(z.Records...)
					if tt.ds {
						s.AddRR(z.DS)
					}
				}
				if tt.extra != nil {
					tt.extra(t, s, a.alg)
				}
				host := tt.host
				if host == "" {
					host = "site.test"
				}
				r := &dns.Resolver{Servers: []string{s.Addr}, Timeout: testTimeout}
				rep, err := r.CheckDNSSEC(context.Background(), host, now)
				if err != nil {
					t.Fatal(err)
				}
				got := rep.Validation
				if got.Status != tt.want.Status || got.DNSKEYSignatureValid != tt.want.DNSKEYSignatureValid ||
					got.DSMatchesKSK != tt.want.DSMatchesKSK || !strings.Contains(got.Reason, tt.reason) {
					t.Errorf("got %+v, want %+v with a reason containing %q", got, tt.want, tt.reason)
				}
				if rep.IsEnabled != tt.enabled {
					t.Errorf("isEnabled: got %v, want %v", rep.IsEnabled, tt.enabled)
				}
				if tt.enabled && (len(rep.DNSKEY) != 2 || len(rep.RRSIG) != 2 || rep.Zone != "site.test") {
					t.Errorf("got zone %q, %d DNSKEY, %d RRSIG; want site.test, 2 and 2", rep.Zone, len(rep.DNSKEY), len(rep.RRSIG))
				}
				if !tt.enabled && tt.zone == nil && (rep.DNSKEY == nil || len(rep.DNSKEY)+len(rep.RRSIG) != 0) {
					t.Errorf("got %q %q, want empty lists", rep.DNSKEY, rep.RRSIG)
				}
			})
		}
	}
}

func TestCheckDNSSECRecordText(t *testing.T) {
	now := time.Now()
	z := signZone(t, mdns.ECDSAP256SHA256, now.Add(-time.Hour), now.Add(time.Hour))
	s := dnstest.Start(t)
	s.AddRR(z.Records...)
	s.AddRR(z.DS)
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
	s.AddRR(z.Records...)
	s.AddRR(z.DS)
	r := &dns.Resolver{Servers: []string{s.Addr}, Timeout: testTimeout}
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
		if rep.Validation.Status != tc.status || !strings.Contains(rep.Validation.Reason, tc.reason) {
			t.Errorf("at %v: got %+v, want %s with %q", tc.now, rep.Validation, tc.status, tc.reason)
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
	t.Run("DS query fails: indeterminate", func(t *testing.T) {
		now := time.Now()
		z := signZone(t, mdns.ECDSAP256SHA256, now.Add(-time.Hour), now.Add(time.Hour))
		s := dnstest.Start(t)
		s.AddRR(z.Records...)
		s.Handle(func(w mdns.ResponseWriter, req *mdns.Msg) {
			if req.Question[0].Qtype == mdns.TypeDS {
				resp := new(mdns.Msg)
				w.WriteMsg(resp.SetRcode(req, mdns.RcodeServerFailure))
				return
			}
			s.ServeRecords(w, req)
		})
		r := &dns.Resolver{Servers: []string{s.Addr}, Timeout: testTimeout}
		rep, err := r.CheckDNSSEC(context.Background(), "site.test", now)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.IsEnabled || rep.Validation.Status != dns.Indeterminate || !strings.Contains(rep.Validation.Reason, "SERVFAIL") {
			t.Errorf("got %+v, want enabled and indeterminate because of SERVFAIL", rep)
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
	s.AddRR(z.Records...)
	s.AddRR(z.DS)
	r := &dns.Resolver{Servers: []string{s.Addr}, Timeout: testTimeout}
	rep, err := r.CheckDNSSEC(context.Background(), "site.test", now)
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Validation; got.Status != dns.Bogus || got.DNSKEYSignatureValid || !strings.Contains(got.Reason, "gave up") {
		t.Errorf("got %+v, want bogus: gave up before the valid signature", got)
	}
	if len(rep.RRSIG) != 42 {
		t.Errorf("got %d RRSIG, want all 42 listed", len(rep.RRSIG))
	}
}
