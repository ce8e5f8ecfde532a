package sitediag

import (
	"context"
	"errors"
	"net/netip"
	"testing"

	"github.com/sitediag/sitediag/internal/dnstest"
)

func TestHopLookups(t *testing.T) {
	dns := dnstest.Start(t)
	dns.Add(t,
		"7.2.0.192.in-addr.arpa. 60 IN PTR edge.site.test.",
		`7.2.0.192.origin.test. 60 IN TXT "64496 | 192.0.2.0/24 | ZZ | test | 2024-01-01"`,
	)
	addr, other := netip.MustParseAddr("192.0.2.7"), netip.MustParseAddr("192.0.2.8")
	ctx := context.Background()

	c, err := New(Config{DNSServers: []string{dns.Addr}, ASNOriginZone: "origin.test"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.ptrName(ctx, addr); got != "edge.site.test" {
		t.Errorf("ptrName = %q, want edge.site.test", got)
	}
	if got := c.ptrName(ctx, other); got != "" {
		t.Errorf("ptrName without a record = %q, want empty", got)
	}
	lookup := c.asnLookup()
	if got := lookup(ctx, addr); got != "AS64496" {
		t.Errorf("origin lookup = %q, want AS64496", got)
	}
	if got := lookup(ctx, other); got != "" {
		t.Errorf("origin lookup without a record = %q, want empty", got)
	}

	custom, _ := New(Config{DNSServers: []string{dns.Addr}, ASNOriginZone: "origin.test",
		ASN: func(_ context.Context, a netip.Addr) (string, error) {
			if a == addr {
				return "AS64511", nil
			}
			return "", errors.New("no data")
		}})
	defer custom.Close()
	if got := custom.asnLookup()(ctx, addr); got != "AS64511" {
		t.Errorf("Config.ASN is not preferred: got %q", got)
	}
	if got := custom.asnLookup()(ctx, other); got != "" {
		t.Errorf("Config.ASN error: got %q, want empty", got)
	}
	none, _ := New(Config{DNSServers: []string{dns.Addr}})
	defer none.Close()
	if none.asnLookup() != nil {
		t.Error("no ASN configuration, but a lookup")
	}
}
