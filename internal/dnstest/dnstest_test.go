package dnstest_test

import (
	"fmt"
	"testing"
	"time"

	mdns "github.com/miekg/dns"

	"github.com/sitediag/sitediag/internal/dnstest"
)

func exchange(t *testing.T, s *dnstest.Server, name string, qtype uint16, do bool) *mdns.Msg {
	t.Helper()
	msg := new(mdns.Msg)
	msg.SetQuestion(name, qtype)
	msg.SetEdns0(1232, do)
	resp, err := mdns.Exchange(msg, s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestServerAnswersLikeAResolver(t *testing.T) {
	now := time.Now()
	z, err := dnstest.SignZone("site.test", mdns.ED25519, now.Add(-time.Hour), now.Add(time.Hour),
		"site.test. 3600 IN SOA ns1.site.test. hostmaster.site.test. 1 7200 3600 1209600 300",
		"www.site.test. 300 IN A 192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	s := dnstest.Start(t)
	s.AddRR(z.Records...)

	if resp := exchange(t, s, "www.site.test.", mdns.TypeA, false); len(resp.Answer) != 1 {
		t.Errorf("without DO: got %d answers, want the A record alone", len(resp.Answer))
	}
	resp := exchange(t, s, "www.site.test.", mdns.TypeA, true)
	if len(resp.Answer) != 2 || resp.Answer[1].(*mdns.RRSIG).TypeCovered != mdns.TypeA {
		t.Errorf("with DO: got %v, want the A record and its RRSIG", resp.Answer)
	}
	if err := resp.Answer[1].(*mdns.RRSIG).Verify(z.ZSK.DNSKEY, resp.Answer[:1]); err != nil {
		t.Errorf("the zone's signature does not verify: %v", err)
	}

	resp = exchange(t, s, "www.site.test.", mdns.TypeMX, true)
	if resp.Rcode != mdns.RcodeSuccess || len(resp.Answer) != 0 || len(resp.Ns) != 2 || resp.Ns[0].Header().Name != "site.test." {
		t.Errorf("no data: got %s %v %v, want NOERROR with the zone's SOA and its RRSIG in authority",
			mdns.RcodeToString[resp.Rcode], resp.Answer, resp.Ns)
	}
	resp = exchange(t, s, "nothing.site.test.", mdns.TypeA, false)
	if resp.Rcode != mdns.RcodeNameError || len(resp.Ns) != 1 {
		t.Errorf("missing name: got %s %v, want NXDOMAIN with the SOA", mdns.RcodeToString[resp.Rcode], resp.Ns)
	}
}

func TestServerTruncatesOverUDP(t *testing.T) {
	s := dnstest.Start(t)
	for i := range 30 {
		s.Add(t, fmt.Sprintf(`big.test. 60 IN TXT "%02d 0123456789012345678901234567890123456789"`, i))
	}
	msg := new(mdns.Msg)
	msg.SetQuestion("big.test.", mdns.TypeTXT)
	resp, err := mdns.Exchange(msg, s.Addr) // no EDNS0: 512 bytes
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Truncated || len(resp.Answer) >= 30 {
		t.Errorf("over UDP: got truncated %v with %d records, want a truncated answer", resp.Truncated, len(resp.Answer))
	}
	c := &mdns.Client{Net: "tcp"}
	resp, _, err = c.Exchange(msg, s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Truncated || len(resp.Answer) != 30 {
		t.Errorf("over TCP: got truncated %v with %d records, want all 30", resp.Truncated, len(resp.Answer))
	}
}
