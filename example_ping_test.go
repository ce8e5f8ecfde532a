package sitediag_test

import (
	"context"
	"fmt"
	"log"

	"github.com/sitediag/sitediag"
)

// Ping the local machine three times. With ICMP sockets (root,
// CAP_NET_RAW or ping_group_range) the requests are ICMP echo; without,
// TCP connects to ports 443 and 80. Either way three requests go out.
func ExampleClient_Ping() {
	c := exampleClient()
	defer c.Close()
	res, err := c.Ping(context.Background(), "127.0.0.1", sitediag.PingOptions{Count: 3})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Requests, res.IP)
	// Output: 3 127.0.0.1
}
