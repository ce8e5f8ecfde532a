//go:build unix

package portscan

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/porttest"
	"github.com/sitediag/sitediag/internal/testenv"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/netx"
	"golang.org/x/sys/unix"
)

// guarded is the guard's dial and socket check with only allow exempt.
func guarded(allow ...string) (netx.DialFunc, netx.ControlFunc) {
	var prefixes []netip.Prefix
	for _, a := range allow {
		prefixes = append(prefixes, netip.MustParsePrefix(a))
	}
	g := guard.New(&dns.Resolver{}, guard.NewPolicy(prefixes))
	return g.DialLiteral, g.Control
}

// connectors are the two ways a scan connects: through dial alone, and
// on its own sockets checked by Control (Linux; elsewhere it dials too).
var connectors = []struct {
	name        string
	withControl bool
}{{"dial", false}, {"sockets", true}}

// scanBoth scans ports of addr each way and fails the test unless both
// find want open.
func scanBoth(t *testing.T, addr netip.Addr, ports, want []uint16, opts Options) {
	t.Helper()
	dial, control := guarded(netip.PrefixFrom(addr, addr.BitLen()).String())
	for _, c := range connectors {
		o := opts
		if c.withControl {
			o.Control = control
		}
		res, err := Scan(context.Background(), dial, addr, ports, o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(res.Open, want) {
			t.Errorf("%s: open = %v, want %v", c.name, res.Open, want)
		}
	}
}

// silentPort returns a port on addr that drops every SYN: a listener
// whose accept queue (backlog 0) holds one connection never accepted,
// so the kernel drops what comes next, as a filtering firewall does.
func silentPort(t *testing.T, addr netip.Addr) uint16 {
	t.Helper()
	ln, err := net.ListenTCP("tcp", net.TCPAddrFromAddrPort(netip.AddrPortFrom(addr, 0)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	raw, err := ln.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	raw.Control(func(fd uintptr) { err = unix.Listen(int(fd), 0) })
	if err != nil {
		t.Fatal(err)
	}
	filler, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { filler.Close() })
	return uint16(ln.Addr().(*net.TCPAddr).Port)
}

func TestScanOpenClosedFiltered(t *testing.T) {
	open := []uint16{porttest.Listen(t, porttest.Silent).Port, porttest.Listen(t, porttest.Hangup).Port}
	slices.Sort(open)
	ports := append([]uint16{porttest.Closed(t), porttest.Closed(t), silentPort(t, loopback)}, open...)
	// The filtered port is silent twice (the connect and its retry),
	// each bounded by Timeout.
	scanBoth(t, loopback, ports, open, Options{Timeout: 200 * time.Millisecond})
}

func TestScanIPv6Loopback(t *testing.T) {
	v6 := netip.IPv6Loopback()
	ln, err := net.Listen("tcp", "[::1]:0")
	testenv.Need(t, err == nil, fmt.Sprintf("no IPv6 loopback here: %v", err))
	defer ln.Close()
	closed, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	port := func(l net.Listener) uint16 { return uint16(l.Addr().(*net.TCPAddr).Port) }
	ports := []uint16{port(ln), port(closed)}
	slices.Sort(ports)
	scanBoth(t, v6, ports, []uint16{port(ln)}, Options{})
}

// TestScanManyPorts scans more ports than a window holds, most of them
// closed, so sockets are reused and answers are collected while
// connects are still being made; on a loopback address of its own, where
// the listeners of other tests on 127.0.0.1 do not answer.
func TestScanManyPorts(t *testing.T) {
	addr := privateLoopback()
	var open, ports []uint16
	for range 40 {
		port, _ := porttest.Counting(t, netip.AddrPortFrom(addr, 0).String())
		p, _ := strconv.ParseUint(port, 10, 16)
		open = append(open, uint16(p))
	}
	for range 1500 {
		ports = append(ports, closedOn(t, addr))
	}
	ports = append(ports, open...)
	slices.Sort(ports)
	ports = slices.Compact(ports)
	slices.Sort(open)
	scanBoth(t, addr, ports, open, Options{Concurrency: 300})
}

// privateLoopback is a loopback address other than 127.0.0.1, chosen at
// random.
func privateLoopback() netip.Addr {
	return netip.AddrFrom4([4]byte{127, byte(1 + rand.IntN(254)), byte(rand.IntN(256)), byte(1 + rand.IntN(254))})
}

// closedOn returns a port of addr nothing listens on (one just released).
func closedOn(t *testing.T, addr netip.Addr) uint16 {
	t.Helper()
	ln, err := net.ListenTCP("tcp", net.TCPAddrFromAddrPort(netip.AddrPortFrom(addr, 0)))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return uint16(ln.Addr().(*net.TCPAddr).Port)
}
