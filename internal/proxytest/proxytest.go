// Package proxytest runs local forward proxies for tests, an HTTP CONNECT
// proxy and a SOCKS5 proxy on 127.0.0.1 with a random port, that record
// every target they are asked for, so a test can prove what went
// through them.
package proxytest

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"testing"
	"time"
)

// Proxy is a running proxy.
type Proxy struct {
	// URL is the proxy's address, http://127.0.0.1:port or
	// socks5://127.0.0.1:port, with the credentials when set.
	URL *url.URL

	user, password string
	ln             net.Listener
	mu             sync.Mutex
	targets        []string
	conns          map[net.Conn]bool
	wg             sync.WaitGroup
}

// Options adjust a proxy. The zero value needs no credentials.
type Options struct {
	// User and Password, when User is set, are required from clients
	// (Proxy-Authorization Basic, or SOCKS5 username/password); the URL
	// carries them.
	User, Password string
}

// StartConnect starts an HTTP CONNECT proxy; it stops when the test ends.
func StartConnect(t testing.TB, opts Options) *Proxy {
	return start(t, "http", opts)
}

// StartSOCKS5 starts a SOCKS5 proxy (CONNECT only); it stops when the
// test ends.
func StartSOCKS5(t testing.TB, opts Options) *Proxy {
	return start(t, "socks5", opts)
}

func start(t testing.TB, scheme string, opts Options) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxytest: %v", err)
	}
	p := &Proxy{URL: &url.URL{Scheme: scheme, Host: ln.Addr().String()}, user: opts.User, password: opts.Password,
		ln: ln, conns: map[net.Conn]bool{}}
	if opts.User != "" {
		p.URL.User = url.UserPassword(opts.User, opts.Password)
	}
	serve := p.serveConnect
	if scheme == "socks5" {
		serve = p.serveSOCKS5
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			p.conns[conn] = true
			p.mu.Unlock()
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				defer func() {
					conn.Close()
					p.mu.Lock()
					delete(p.conns, conn)
					p.mu.Unlock()
				}()
				serve(conn)
			}()
		}
	}()
	t.Cleanup(p.Close)
	return p
}

// Close stops the proxy, ends its tunnels and waits for them.
func (p *Proxy) Close() {
	p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// Targets returns the host:port of every tunnel asked for, in order.
func (p *Proxy) Targets() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.targets...)
}

func (p *Proxy) record(target string) {
	p.mu.Lock()
	p.targets = append(p.targets, target)
	p.mu.Unlock()
}

func (p *Proxy) serveConnect(conn net.Conn) {
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	if req.Method != http.MethodConnect {
		io.WriteString(conn, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
		return
	}
	if p.user != "" {
		want := "Basic " + base64.StdEncoding.EncodeToString([]byte(p.user+":"+p.password))
		if req.Header.Get("Proxy-Authorization") != want {
			io.WriteString(conn, "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n")
			return
		}
	}
	p.record(req.Host)
	upstream, err := net.DialTimeout("tcp", req.Host, 5*time.Second)
	if err != nil {
		io.WriteString(conn, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
		return
	}
	defer upstream.Close()
	io.WriteString(conn, "HTTP/1.1 200 Connection Established\r\n\r\n")
	conn.SetDeadline(time.Time{})
	pipe(&readerConn{Conn: conn, r: br}, upstream)
}

func (p *Proxy) serveSOCKS5(conn net.Conn) {
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	var head [2]byte
	if _, err := io.ReadFull(conn, head[:]); err != nil || head[0] != 5 {
		return
	}
	methods := make([]byte, head[1])
	if _, err := io.ReadFull(conn, methods); err != nil {
		return
	}
	want := byte(0)
	if p.user != "" {
		want = 2
	}
	offered := false
	for _, m := range methods {
		offered = offered || m == want
	}
	if !offered {
		conn.Write([]byte{5, 0xff})
		return
	}
	conn.Write([]byte{5, want})
	if want == 2 && !p.socksAuth(conn) {
		return
	}
	var req [4]byte
	if _, err := io.ReadFull(conn, req[:]); err != nil || req[1] != 1 {
		return
	}
	var ip []byte
	switch req[3] {
	case 1:
		ip = make([]byte, 4)
	case 4:
		ip = make([]byte, 16)
	default:
		conn.Write([]byte{5, 8, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	var port [2]byte
	if _, err := io.ReadFull(conn, ip); err != nil {
		return
	}
	if _, err := io.ReadFull(conn, port[:]); err != nil {
		return
	}
	addr, _ := netip.AddrFromSlice(ip)
	target := netip.AddrPortFrom(addr, binary.BigEndian.Uint16(port[:])).String()
	p.record(target)
	upstream, err := net.DialTimeout("tcp", target, 5*time.Second)
	if err != nil {
		conn.Write([]byte{5, 5, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	defer upstream.Close()
	conn.Write([]byte{5, 0, 0, 1, 127, 0, 0, 1, 0, 0})
	conn.SetDeadline(time.Time{})
	pipe(conn, upstream)
}

func (p *Proxy) socksAuth(conn net.Conn) bool {
	var ver [2]byte
	if _, err := io.ReadFull(conn, ver[:]); err != nil {
		return false
	}
	name := make([]byte, ver[1])
	io.ReadFull(conn, name)
	var n [1]byte
	io.ReadFull(conn, n[:])
	pass := make([]byte, n[0])
	if _, err := io.ReadFull(conn, pass); err != nil {
		return false
	}
	if string(name) != p.user || string(pass) != p.password {
		conn.Write([]byte{1, 1})
		return false
	}
	conn.Write([]byte{1, 0})
	return true
}

// pipe copies both ways until either side closes.
func pipe(a, b net.Conn) {
	done := make(chan struct{}, 2)
	go func() { io.Copy(a, b); done <- struct{}{} }()
	go func() { io.Copy(b, a); done <- struct{}{} }()
	<-done
}

type readerConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *readerConn) Read(p []byte) (int, error) { return c.r.Read(p) }
