package sitediag_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/sitediag/sitediag"
)

func ExampleClient_DNSRecords() {
	// A local DNS server stands in for the operator's resolver.
	srv := exampleDNS(
		"shop.test. 300 IN A 192.0.2.10",
		"shop.test. 300 IN MX 20 mx2.shop.test.",
		"shop.test. 300 IN MX 10 mx1.shop.test.",
		`shop.test. 300 IN TXT "v=spf1 " "-all"`,
	)
	defer srv.Close()

	c := newExampleClient(sitediag.Config{DNSServers: []string{srv.Addr}})
	defer c.Close()
	res, err := c.DNSRecords(context.Background(), "https://shop.test/cart",
		sitediag.DNSRecordsOptions{Types: []string{"a", "mx", "txt", "soa"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Host, res.Types, res.Rcode)
	for _, mx := range res.MX {
		fmt.Println(mx.Priority, mx.Exchange)
	}
	// The API's data: the queried types; no SOA, so no SOA key.
	data, _ := json.Marshal(res)
	fmt.Println(string(data))
	// Output:
	// shop.test [A MX TXT SOA] NOERROR
	// 10 mx1.shop.test
	// 20 mx2.shop.test
	// {"A":["192.0.2.10"],"MX":[{"exchange":"mx1.shop.test","priority":10},{"exchange":"mx2.shop.test","priority":20}],"TXT":["v=spf1 -all"]}
}
