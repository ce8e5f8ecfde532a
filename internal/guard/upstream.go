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

	"golang.org/x/net/proxy"
)

// upstream is the proxy (a country proxy, say) that a filtering proxy
// hands admitted requests to. It is the operator's and trusted: it is
// dialled without the policy, but only ever asked for checked targets.
type upstream struct {
	url   *url.URL
	socks proxy.ContextDialer
}

func newUpstream(u *url.URL) (*upstream, error) {
	if u == nil {
		return nil, nil
	}
	if u.Host == "" {
		return nil, errors.New("guard: upstream proxy has no host")
	}
	switch u.Scheme {
	case "http", "https":
		return &upstream{url: u}, nil
	case "socks5", "socks5h":
		var auth *proxy.Auth
		if u.User != nil {
			pw, _ := u.User.Password()
			auth = &proxy.Auth{User: u.User.Username(), Password: pw}
		}
		d, err := proxy.SOCKS5("tcp", u.Host, auth, &net.Dialer{Timeout: dialTimeout})
		if err != nil {
			return nil, fmt.Errorf("guard: upstream proxy: %w", err)
		}
		cd, ok := d.(proxy.ContextDialer)
		if !ok {
			return nil, errors.New("guard: upstream proxy: SOCKS5 dialer cannot take a context")
		}
		return &upstream{url: u, socks: cd}, nil
	}
	return nil, fmt.Errorf("guard: upstream proxy scheme %q is not http, https, socks5 or socks5h", u.Scheme)
}

// forwardsHTTP reports whether plain HTTP requests can be handed to the
// upstream in absolute form (an HTTP proxy) rather than tunnelled.
func (u *upstream) forwardsHTTP() bool { return u.socks == nil }

// dial opens a connection to t through the upstream: a SOCKS5 connect, or
// an HTTP CONNECT tunnel. socks5 is given the checked address, the others
// the host name.
func (u *upstream) dial(ctx context.Context, t *admitted) (net.Conn, error) {
	if u.socks == nil {
		return u.connect(ctx, hostKey(t.host, t.port))
	}
	if u.url.Scheme == "socks5h" {
		return u.socks.DialContext(ctx, "tcp", hostKey(t.host, t.port))
	}
	var errs []error
	for _, a := range t.addrs {
		conn, err := u.socks.DialContext(ctx, "tcp", netip.AddrPortFrom(a, t.port).String())
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// connect asks an HTTP(S) upstream for a tunnel to hostport.
func (u *upstream) connect(ctx context.Context, hostport string) (net.Conn, error) {
	addr := u.url.Host
	if u.url.Port() == "" {
		port := "80"
		if u.url.Scheme == "https" {
			port = "443"
		}
		addr = net.JoinHostPort(u.url.Hostname(), port)
	}
	conn, err := (&net.Dialer{Timeout: dialTimeout}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("guard: upstream proxy: %w", err)
	}
	if u.url.Scheme == "https" {
		tconn := tls.Client(conn, &tls.Config{ServerName: u.url.Hostname()})
		if err := handshake(ctx, tconn); err != nil {
			conn.Close()
			return nil, fmt.Errorf("guard: upstream proxy: %w", err)
		}
		conn = tconn
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	req := &http.Request{
		Method: http.MethodConnect,
		URL:    &url.URL{Opaque: hostport},
		Host:   hostport,
		Header: http.Header{},
	}
	if u.url.User != nil {
		pw, _ := u.url.User.Password()
		cred := base64.StdEncoding.EncodeToString([]byte(u.url.User.Username() + ":" + pw))
		req.Header.Set("Proxy-Authorization", "Basic "+cred)
	}
	if err := req.Write(conn); err != nil {
		stop()
		conn.Close()
		return nil, fmt.Errorf("guard: upstream proxy: %w", err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		stop()
		conn.Close()
		return nil, fmt.Errorf("guard: upstream proxy: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		stop()
		conn.Close()
		return nil, fmt.Errorf("guard: upstream proxy answered CONNECT with %s", resp.Status)
	}
	if !stop() {
		conn.Close()
		return nil, ctx.Err()
	}
	if br.Buffered() > 0 {
		return &bufferedConn{Conn: conn, r: br}, nil
	}
	return conn, nil
}

// bufferedConn reads what the upstream sent past its CONNECT answer first.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
