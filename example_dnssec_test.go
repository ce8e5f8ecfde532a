package sitediag_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	mdns "github.com/miekg/dns"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/dnstest"
)

func ExampleClient_DNSSEC() {
	// A local DNS server serves shop.test, signed with a KSK and a ZSK,
	// and the DS that the parent zone would publish.
	now := time.Now()
	zone, err := dnstest.SignZone("shop.test", mdns.ED25519, now.Add(-time.Hour), now.Add(24*time.Hour),
		"shop.test. 3600 IN SOA ns1.shop.test. hostmaster.shop.test. 1 7200 3600 1209600 300",
		"shop.test. 300 IN A 192.0.2.10",
		"shop.test. 300 IN AAAA 2001:db8::1",
		"shop.test. 300 IN MX 10 mail.shop.test.",
		"shop.test. 300 IN TXT \"v=spf1 -all\"",
	)
	if err != nil {
		log.Fatal(err)
	}
	srv := exampleDNS()
	defer srv.Close()
	srv.ServeZone(zone)

	// The zone's DS is the trust anchor: the chain starts there.
	anchor := filepath.Join(os.TempDir(), "shop.test.ds")
	if err := os.WriteFile(anchor, []byte(zone.DS.String()), 0o644); err != nil {
		log.Fatal(err)
	}
	defer os.Remove(anchor)
	c := newExampleClient(sitediag.Config{DNSServers: []string{srv.Addr}, DNSSECTrustAnchor: anchor})
	defer c.Close()
	res, err := c.DNSSEC(context.Background(), "https://shop.test/", sitediag.DNSSECOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Host, "is in zone", res.Zone)
	fmt.Println("enabled:", res.IsEnabled, "keys:", len(res.DNSKEY), "signatures:", len(res.RRSIG))
	fmt.Println(res.Validation.Status, *res.Validation.DNSKEYSignatureValid, *res.Validation.DSMatchesKSK)
	// Output:
	// shop.test is in zone shop.test
	// enabled: true keys: 2 signatures: 2
	// secure true true
}
