package portscan_test

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/netip"
	"syscall"

	"github.com/sitediag/sitediag/net/netx"
	"github.com/sitediag/sitediag/net/portscan"
)

// Scan two ports of 127.0.0.1, one listening and one closed, under a
// policy of the caller's own that allows that one address: dial for the
// connections a scan makes through the network's usual path, and the
// same check on every socket the scan opens itself.
func ExampleScan() {
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
	open := uint16(ln.Addr().(*net.TCPAddr).Port)
	shut := uint16(closed.Addr().(*net.TCPAddr).Port)

	target := netip.MustParseAddr("127.0.0.1")
	control := func(_, address string, _ syscall.RawConn) error {
		if ap, err := netip.ParseAddrPort(address); err != nil || ap.Addr() != target {
			return netx.ErrNotAllowed
		}
		return nil
	}
	dialer := &net.Dialer{Control: control}
	res, err := portscan.Scan(context.Background(), dialer.DialContext, target, []uint16{open, shut},
		portscan.Options{Control: control})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(res.Open), res.Open[0] == open)
	// Output: 1 true
}
