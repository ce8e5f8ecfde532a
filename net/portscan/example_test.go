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

// Scan a local service that greets with an SSH banner and tell what
// answers on it, under a policy of the caller's own that allows the one
// address 127.0.0.1: dial for the connections the scan and the detection
// make through the network's usual path, and the same check on every
// socket the scan opens itself.
func ExampleScan() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
			conn.Close()
		}
	}()

	target := netip.MustParseAddr("127.0.0.1")
	control := func(_, address string, _ syscall.RawConn) error {
		if ap, err := netip.ParseAddrPort(address); err != nil || ap.Addr() != target {
			return netx.ErrNotAllowed
		}
		return nil
	}
	dialer := &net.Dialer{Control: control}
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	res, err := portscan.Scan(context.Background(), dialer.DialContext, target, []uint16{port},
		portscan.Options{Control: control, DetectServices: true})
	if err != nil {
		log.Fatal(err)
	}
	svc := res.Services[0].Service
	fmt.Println(res.Open[0] == port, svc.Name, svc.Product, svc.Version)
	// Output: true ssh OpenSSH 9.6
}
