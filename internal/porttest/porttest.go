// Package porttest gives tests TCP ports on loopback: listeners on
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
	// Port is its port on its address.
	Port     uint16
	accepted atomic.Int32
}

// Accepted returns the number of connections accepted so far.
func (l *Listener) Accepted() int { return int(l.accepted.Load()) }

// Listen opens a listener on a random port of 127.0.0.1 that runs serve
// on each connection (then closes it), until the test ends.
func Listen(t testing.TB, serve func(net.Conn)) *Listener {
	t.Helper()
	return ListenOn(t, "127.0.0.1", serve)
}

// ListenOn is Listen on addr, another loopback address such as
// 127.0.0.2 (one a test's policy refuses).
func ListenOn(t testing.TB, addr string, serve func(net.Conn)) *Listener {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
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

// Retry runs start up to three times, as a port found free may be taken
// before the server started on it binds it. It returns the first server
// start gives, with stop registered for the test's end, or fails the
// test with start's last error.
func Retry[S any](t testing.TB, start func() (S, error), stop func(S)) S {
	t.Helper()
	var last error
	for range 3 {
		s, err := start()
		if err == nil {
			t.Cleanup(func() { stop(s) })
			return s
		}
		last = err
	}
	t.Fatalf("porttest: the server did not start: %v", last)
	var zero S
	return zero
}
