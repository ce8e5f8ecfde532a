package sitediag_test

import (
	"context"
	"fmt"
	"log"
	"net"

	"github.com/sitediag/sitediag"
)

// Scan two ports of a local service: one listening, one closed. The
// operator exempts the loopback address, which the SSRF policy otherwise
// refuses.
func ExampleClient_OpenPort() {
	ln := exampleListen()
	defer ln.Close()
	closed := exampleListen()
	closed.Close()
	open := ln.Addr().(*net.TCPAddr).Port
	shut := closed.Addr().(*net.TCPAddr).Port

	c := exampleClient()
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
