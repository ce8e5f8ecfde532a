//go:build linux

package netnstest

import (
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Peer is a network namespace joined to the test's own by a veth pair:
// another host, as far as the network goes. The peer has the address
// Addr and reaches the test's namespace at Host, a /30 picked at random
// in 198.18.0.0/15 (the benchmarking range, which the SSRF policy
// denies); it reaches nothing else, not even the test's loopback.
type Peer struct {
	// NS is the namespace's name.
	NS string
	// Host is the test's side of the pair, Addr the peer's.
	Host, Addr netip.Addr
}

// NewPeer builds a peer and deletes it (namespace and pair) when t ends.
// Needs root and iproute2, as New does.
func NewPeer(t testing.TB) *Peer {
	t.Helper()
	prefix, suffix := namePrefix(t)
	p := &Peer{NS: prefix + "p"}
	hostIf := "sdtp" + suffix
	p.Host, p.Addr = freeSubnet(t)
	run(t, "ip", "netns", "add", p.NS)
	t.Cleanup(func() {
		// The pair goes with the namespace.
		if out, err := exec.Command("ip", "netns", "del", p.NS).CombinedOutput(); err != nil {
			t.Errorf("netnstest: deleting %s: %v: %s", p.NS, err, out)
		}
	})
	run(t, "ip", "link", "add", hostIf, "type", "veth", "peer", "name", "eth0", "netns", p.NS)
	run(t, "ip", "addr", "add", p.Host.String()+"/30", "dev", hostIf)
	run(t, "ip", "link", "set", hostIf, "up")
	run(t, "ip", "-n", p.NS, "addr", "add", p.Addr.String()+"/30", "dev", "eth0")
	run(t, "ip", "-n", p.NS, "link", "set", "eth0", "up")
	run(t, "ip", "-n", p.NS, "link", "set", "lo", "up")
	deadline := time.Now().Add(10 * time.Second)
	for _, link := range [][]string{{"ip", "-o", "link", "show", "dev", hostIf}, {"ip", "-n", p.NS, "-o", "link", "show", "dev", "eth0"}} {
		for {
			out := run(t, link[0], link[1:]...)
			if !strings.Contains(out, "qdisc noop") && strings.Contains(out, "state UP") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("netnstest: link not ready: %s", out)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return p
}

// freeSubnet picks a /30 in 198.18.0.0/15 that no interface of the
// test's namespace uses, and returns its two addresses.
func freeSubnet(t testing.TB) (host, peer netip.Addr) {
	t.Helper()
	for range 20 {
		var b [3]byte
		rand.Read(b[:])
		host = netip.AddrFrom4([4]byte{198, 18 + b[0]&1, b[1], b[2]&^3 + 1})
		if strings.TrimSpace(run(t, "ip", "-o", "addr", "show", "to", host.String()+"/30")) == "" {
			return host, host.Next()
		}
	}
	t.Fatal("netnstest: no free /30 in 198.18.0.0/15")
	return
}

// Forward listens on Addr, on a port of its own, inside the peer's
// namespace, and joins each connection to 127.0.0.1:port there (a
// service that listens on the peer's loopback only, such as Chromium's
// DevTools), until t ends. It returns the address it listens on.
func (p *Peer) Forward(t testing.TB, port int) netip.AddrPort {
	t.Helper()
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() { // after the listener's, which listen registers later
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	ln := p.listen(t, 0, func(ln net.Listener) {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// Dialled from this thread: in the peer's namespace.
			d, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, d)
			mu.Unlock()
			go join(c, d)
		}
	})
	return netip.MustParseAddrPort(ln.Addr().String())
}

// enter moves the calling thread into namespace ns.
func enter(ns string) error {
	f, err := os.Open("/var/run/netns/" + ns)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Setns(int(f.Fd()), unix.CLONE_NEWNET)
}

// join copies both ways between a and b until either ends.
func join(a, b net.Conn) {
	done := make(chan struct{})
	go func() {
		io.Copy(a, b)
		a.Close()
		close(done)
	}()
	io.Copy(b, a)
	b.Close()
	<-done
}

// Listen listens on Addr:port inside the peer's namespace (port 0 picks
// one) until t ends: a service of that other host, on any port (80 and
// 443 included) without taking the port on the test's machine.
func (p *Peer) Listen(t testing.TB, port int) net.Listener {
	t.Helper()
	return p.listen(t, port, nil)
}

// listen listens on Addr:port inside the peer's namespace, as listenIn
// does.
func (p *Peer) listen(t testing.TB, port int, serve func(net.Listener)) net.Listener {
	t.Helper()
	return listenIn(t, p.NS, netip.AddrPortFrom(p.Addr, uint16(port)).String(), serve)
}

// listenIn listens on addr inside namespace ns until t ends, then runs
// serve (when not nil) with the listener. Sockets are made in the
// namespace of the thread that makes them: the listener's, and what
// serve dials, are made on a thread that never leaves ns and ends with
// the goroutine, locked.
func listenIn(t testing.TB, ns, addr string, serve func(net.Listener)) net.Listener {
	t.Helper()
	type listening struct {
		ln  net.Listener
		err error
	}
	ready := make(chan listening, 1)
	go func() {
		runtime.LockOSThread()
		var ln net.Listener
		err := enter(ns)
		if err == nil {
			ln, err = net.Listen("tcp", addr)
		}
		ready <- listening{ln, err}
		if err == nil && serve != nil {
			serve(ln)
		}
	}()
	l := <-ready
	if l.err != nil {
		t.Fatalf("netnstest: listening in %s: %v", ns, l.err)
	}
	t.Cleanup(func() { l.ln.Close() })
	return l.ln
}
