// Package porttest gives tests TCP ports on 127.0.0.1: listeners on
// random ports that run a function per connection and count them, and
// ports nothing listens on.
package porttest

import (
	"net"
	"sync/atomic"
	"testing"
)

// Listener is a running test listener.
type Listener struct {
	// Port is its port on 127.0.0.1.
	Port     uint16
	accepted atomic.Int32
}

// Accepted returns the number of connections accepted so far.
func (l *Listener) Accepted() int { return int(l.accepted.Load()) }

// Listen opens a listener on a random loopback port that runs serve on
// each connection (then closes it), until the test ends.
func Listen(t testing.TB, serve func(net.Conn)) *Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("porttest: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	l := &Listener{Port: uint16(ln.Addr().(*net.TCPAddr).Port)}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			l.accepted.Add(1)
			go func() {
				defer conn.Close()
				serve(conn)
			}()
		}
	}()
	return l
}

// Closed returns a loopback port nothing listens on (one just released).
func Closed(t testing.TB) uint16 {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("porttest: %v", err)
	}
	defer ln.Close()
	return uint16(ln.Addr().(*net.TCPAddr).Port)
}

// Silent holds a connection open until the client sends a byte or
// closes it.
func Silent(conn net.Conn) { conn.Read(make([]byte, 1)) }

// Hangup closes the connection at once.
func Hangup(net.Conn) {}
