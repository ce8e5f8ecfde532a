package dns_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"
	"slices"
	"testing"

	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/dnstest"
)

// recordsZone holds every supported type at site.test, an alias at
// www.site.test and a name with no records of most types at bare.test.
var recordsZone = append(dnstest.EveryType("site.test"), "bare.test. 60 IN A 192.0.2.9")

func TestLookupRecordsShapes(t *testing.T) {
	r := zoneResolver(t, recordsZone...)
	tests := []struct {
		name  string
		host  string
		types []string
		rcode string
		want  string
	}{
		{
			name:  "every type",
			host:  "site.test",
			rcode: "NOERROR",
			want: `{"A":["192.0.2.1","192.0.2.2"],"AAAA":["2001:db8::1"],"CNAME":[],` +
				`"MX":[{"exchange":"mx1.site.test","priority":10},{"exchange":"mx2.site.test","priority":20},{"exchange":"mx3.site.test","priority":30}],` +
				`"CAA":[{"critical":128,"tag":"issue","value":"ca.example"},{"critical":0,"tag":"iodef","value":"mailto:security@site.test"}],` +
				`"NS":["ns1.site.test","ns2.site.test"],` +
				`"SOA":{"nsname":"ns1.site.test","hostmaster":"hostmaster.site.test","serial":2024010101,"refresh":7200,"retry":3600,"expire":1209600,"minttl":300},` +
				`"SRV":[{"name":"sip0.site.test","port":5060,"priority":10,"weight":60},{"name":"sip1.site.test","port":5060,"priority":10,"weight":10},{"name":"sip2.site.test","port":5061,"priority":20,"weight":5}],` +
				`"TXT":["v=spf1 include:site.test ~all","hello"]}`,
		},
		{
			name:  "alias: addresses of the final name, CNAME the target",
			host:  "www.site.test",
			types: []string{"cname", "A", "aaaa", "MX"},
			rcode: "NOERROR",
			want: `{"CNAME":["site.test"],"A":["192.0.2.1","192.0.2.2"],"AAAA":["2001:db8::1"],` +
				`"MX":[{"exchange":"mx1.site.test","priority":10},{"exchange":"mx2.site.test","priority":20},{"exchange":"mx3.site.test","priority":30}]}`,
		},
		{
			name:  "absent types are empty, an absent SOA is left out",
			host:  "bare.test",
			rcode: "NOERROR",
			want:  `{"A":["192.0.2.9"],"AAAA":[],"CNAME":[],"MX":[],"CAA":[],"NS":[],"SRV":[],"TXT":[]}`,
		},
		{
			name:  "NXDOMAIN is an answer",
			host:  "missing.test",
			types: []string{"A", "SOA", "TXT"},
			rcode: "NXDOMAIN",
			want:  `{"A":[],"TXT":[]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := r.LookupRecords(context.Background(), tt.host, tt.types)
			if err != nil {
				t.Fatal(err)
			}
			if recs.Rcode != tt.rcode {
				t.Errorf("rcode: got %s, want %s", recs.Rcode, tt.rcode)
			}
			got, err := json.Marshal(recs)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestLookupRecordsNoServerAnswers(t *testing.T) {
	r := &dns.Resolver{Servers: []string{closedPort(t)}, Timeout: testTimeout}
	_, err := r.LookupRecords(context.Background(), "site.test", nil)
	if !errors.Is(err, dns.ErrNoAnswer) {
		t.Fatalf("got %v, want ErrNoAnswer", err)
	}
}

func TestParseTypes(t *testing.T) {
	tests := []struct {
		in        []string
		want      []string
		bad       string
		duplicate bool
	}{
		{in: nil, want: dns.RecordTypes()},
		{in: []string{}, want: dns.RecordTypes()},
		{in: []string{"mx", "A", "Txt"}, want: []string{"MX", "A", "TXT"}},
		{in: []string{"A", "PTR"}, bad: "PTR"},
		{in: []string{""}, bad: ""},
		{in: []string{"a", "A"}, bad: "A", duplicate: true},
	}
	for _, tt := range tests {
		got, err := dns.ParseTypes(tt.in)
		if tt.bad == "" && tt.want != nil {
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("ParseTypes(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			continue
		}
		var te *dns.TypeError
		if !errors.As(err, &te) || te.Type != tt.bad || te.Duplicate != tt.duplicate {
			t.Errorf("ParseTypes(%q): got %v, want a TypeError for %q (duplicate %v)", tt.in, err, tt.bad, tt.duplicate)
		}
	}
}

func TestReverseName(t *testing.T) {
	tests := map[string]string{
		"192.0.2.1":        "1.2.0.192.in-addr.arpa",
		"::ffff:192.0.2.1": "1.2.0.192.in-addr.arpa",
		"2001:db8::1":      "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa",
	}
	for in, want := range tests {
		if got := dns.ReverseName(netip.MustParseAddr(in)); got != want {
			t.Errorf("ReverseName(%s) = %s, want %s", in, got, want)
		}
	}
}

func BenchmarkLookupRecords(b *testing.B) {
	s := dnstest.Start(b)
	s.Add(b, recordsZone...)
	r := &dns.Resolver{Servers: []string{s.Addr}}
	ctx := context.Background()
	for b.Loop() {
		if _, err := r.LookupRecords(ctx, "site.test", nil); err != nil {
			b.Fatal(err)
		}
	}
}
