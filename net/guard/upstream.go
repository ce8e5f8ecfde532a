package guard

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	"github.com/sitediag/sitediag/net/netx"
)

// TunnelError means the proxy was reached but could not connect to the
// target: it answered CONNECT with a non-2xx status, or SOCKS5 with a
// failure. For the caller it is a target that cannot be reached.
type TunnelError struct {
	// Status is the proxy's HTTP status; 0 for SOCKS5.
	Status int
	Err    error
}

func (e *TunnelError) Error() string {
	if e.Status != 0 {
		return "guard: proxy could not connect to the target: " + strconv.Itoa(e.Status)
	}
	return "guard: proxy could not connect to the target: " + e.Err.Error()
}

// Unwrap returns the cause, if any.
func (e *TunnelError) Unwrap() error { return e.Err }

// Dialer returns the guarded dial function for TCP: DialContext when
// proxy is nil. With a proxy (http://, https://, socks5:// or
// socks5h://), the target's name is resolved with the guard's resolver
// and checked by the policy first; the proxy is then asked to connect to
// the checked IP address, never to the name, so it cannot reach anything
// the policy refuses. The proxy itself is the operator's and is trusted:
// the policy does not apply to its address. A proxied connection's
// RemoteAddr is the target's address.
func (g *Guard) Dialer(proxy *url.URL) netx.DialFunc {
	if proxy == nil {
		return g.DialContext
	}
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		return g.dialVia(ctx, proxy, network, address)
	}
}

func (g *Guard) dialVia(ctx context.Context, proxy *url.URL, network, address string) (net.Conn, error) {
	if network != "tcp" && network != "tcp4" && network != "tcp6" {
		return nil, fmt.Errorf("guard: a proxy carries TCP only, not %s", network)
	}
	addrs, port, err := g.resolveAddress(ctx, address)
	if err != nil {
		return nil, err
	}
	return g.firstConn(ctx, network, addrs, port, func(ctx context.Context, target netip.AddrPort) (net.Conn, error) {
		return g.tunnel(ctx, proxy, target)
	}, func(err error) bool {
		// The proxy itself failed: other addresses will not help.
		var perr *netx.ProxyError
		return errors.As(err, &perr)
	})
}

func splitHostPort(address string) (string, uint16, error) {
	host, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return "", 0, fmt.Errorf("guard: %w", err)
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return "", 0, fmt.Errorf("guard: bad port %q", portStr)
	}
	return host, uint16(port), nil
}

// tunnel asks proxy for a connection to target.
func (g *Guard) tunnel(ctx context.Context, proxy *url.URL, target netip.AddrPort) (net.Conn, error) {
	var conn net.Conn
	var err error
	switch proxy.Scheme {
	case "socks5", "socks5h":
		conn, err = g.socks5(ctx, proxy, target)
	case "http", "https":
		conn, err = g.connect(ctx, proxy, target)
	default:
		return nil, &netx.ProxyError{Proxy: proxy.Host, Err: fmt.Errorf("scheme %q is not http, https or socks5", proxy.Scheme)}
	}
	if err != nil {
		return nil, err
	}
	return &tunnelConn{Conn: conn, remote: net.TCPAddrFromAddrPort(target)}, nil
}

// dialProxy connects to the proxy, resolving its name with the guard's
// resolver; the policy does not apply to the operator's proxy.
func (g *Guard) dialProxy(ctx context.Context, proxy *url.URL) (net.Conn, error) {
	host, port := proxy.Hostname(), proxy.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[proxy.Scheme]
		if port == "" {
			port = "1080"
		}
	}
	addrs, err := g.resolver.LookupAddrs(ctx, host)
	if err == nil && len(addrs) == 0 {
		err = errNoAddress
	}
	if err != nil {
		return nil, &netx.ProxyError{Proxy: proxy.Host, Err: err}
	}
	d := &net.Dialer{Timeout: dialTimeout}
	var errs []error
	for _, a := range addrs {
		conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(a.String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, &netx.ProxyError{Proxy: proxy.Host, Err: errors.Join(errs...)}
}

// connect opens an HTTP CONNECT tunnel to target through proxy.
func (g *Guard) connect(ctx context.Context, proxy *url.URL, target netip.AddrPort) (net.Conn, error) {
	conn, err := g.dialProxy(ctx, proxy)
	if err != nil {
		return nil, err
	}
	if proxy.Scheme == "https" {
		tconn := tls.Client(conn, &tls.Config{ServerName: proxy.Hostname()})
		if err := handshake(ctx, tconn); err != nil {
			conn.Close()
			return nil, &netx.ProxyError{Proxy: proxy.Host, Err: err}
		}
		conn = tconn
	}
	// The exchange is bounded by ctx and by the dial timeout.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	conn.SetDeadline(time.Now().Add(dialTimeout))

	req := &http.Request{
		Method: http.MethodConnect,
		URL:    &url.URL{Opaque: target.String()},
		Host:   target.String(),
		Header: http.Header{},
	}
	if u := proxy.User; u != nil {
		pass, _ := u.Password()
		req.Header.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pass)))
	}
	fail := func(err error) (net.Conn, error) {
		conn.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if err := req.Write(conn); err != nil {
		return fail(&netx.ProxyError{Proxy: proxy.Host, Err: err})
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return fail(&netx.ProxyError{Proxy: proxy.Host, Err: err})
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusProxyAuthRequired:
		return fail(&netx.ProxyError{Proxy: proxy.Host, Err: errors.New("proxy authentication refused")})
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return fail(&TunnelError{Status: resp.StatusCode})
	}
	if !stop() {
		return fail(ctx.Err())
	}
	conn.SetDeadline(time.Time{})
	if br.Buffered() > 0 {
		return &bufferedConn{Conn: conn, r: br}, nil
	}
	return conn, nil
}

// tunnelConn is a connection through a proxy that reports the target as
// its remote address.
type tunnelConn struct {
	net.Conn
	remote net.Addr
}

func (c *tunnelConn) RemoteAddr() net.Addr { return c.remote }

// bufferedConn reads what the proxy sent after its answer first.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
