package sitediag_test

import (
	"context"
	"fmt"
	"log"
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
		"www.shop.test. 300 IN A 192.0.2.10",
	)
	if err != nil {
		log.Fatal(err)
	}
	srv, err := dnstest.Listen()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	srv.AddRR(zone.Records...)
	srv.AddRR(zone.DS)

	c, err := sitediag.New(sitediag.Config{DNSServers: []string{srv.Addr}})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.DNSSEC(context.Background(), "https://www.shop.test/", sitediag.DNSSECOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Host, "is in zone", res.Zone)
	fmt.Println("enabled:", res.IsEnabled, "keys:", len(res.DNSKEY), "signatures:", len(res.RRSIG))
	fmt.Println(res.Validation.Status, res.Validation.DNSKEYSignatureValid, res.Validation.DSMatchesKSK)
	// Output:
	// www.shop.test is in zone shop.test
	// enabled: true keys: 2 signatures: 2
	// secure true true
}
