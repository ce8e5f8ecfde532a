package sitediag_test

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/netip"

	"github.com/sitediag/sitediag"
)

// Scan two ports of a local service: one listening, one closed. The
// operator exempts the loopback address, which the SSRF policy otherwise
// refuses.
func ExampleClient_OpenPort() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	closed.Close()
	open := ln.Addr().(*net.TCPAddr).Port
	shut := closed.Addr().(*net.TCPAddr).Port

	c, err := sitediag.New(sitediag.Config{AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.OpenPort(context.Background(), "127.0.0.1", sitediag.OpenPortOptions{
		PortRanges: fmt.Sprintf("%d,%d", open, shut),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(res.OpenPorts), int(res.OpenPorts[0]) == open, res.IP)
	// Output: 1 true 127.0.0.1
}
