package porttest

import (
	"bufio"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// Raw answers each request on 127.0.0.1 with the canned response for
// its path (404 for any other), written byte for byte, and closes the
// connection. The responses are built from the server's own port, which
// it returns.
func Raw(t testing.TB, responses func(port string) map[string]string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("porttest: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	table := responses(port)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				conn.SetDeadline(time.Now().Add(5 * time.Second))
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				resp, ok := table[req.URL.Path]
				if !ok {
					resp = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
				}
				conn.Write([]byte(resp))
			}()
		}
	}()
	return port
}

// RedirectTo is a raw 302 response to location that closes the
// connection.
func RedirectTo(location string) string {
	return "HTTP/1.1 302 Found\r\nLocation: " + location + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
}

// Counting listens on addr (any loopback address) and counts the
// connections it gets, closing each, until the test ends.
func Counting(t testing.TB, addr string) (port string, conns *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("porttest: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	conns = &atomic.Int32{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port, conns
}
