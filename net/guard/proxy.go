package guard

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sitediag/sitediag/internal/proxyserver"
	"github.com/sitediag/sitediag/net/netx"
	"golang.org/x/net/http/httpguts"
)

// proxyResponseTimeout bounds the wait for a forwarded request's
// response header.
const proxyResponseTimeout = 30 * time.Second

// ProxyStats counts what a proxy did not let through.
type ProxyStats struct {
	// Refused counts requests the policy refused.
	Refused int
	// Blocked counts requests refused by netx.ProxyOptions.Block.
	Blocked int
	// Failed counts requests whose host did not resolve or could not be
	// reached.
	Failed int
}

// Proxy is a filtering HTTP proxy, on a loopback port of its own
// (ListenProxy) or served by a server of the caller's (NewProxy): plain
// requests in absolute form (WebSocket upgrades included) and CONNECT
// tunnels. Each request's host is resolved with the guard's resolver and
// checked against the policy; the proxy then connects to the checked
// address, so a client that knows only this proxy reaches nothing the
// policy refuses. Everything else is refused. It is safe for concurrent
// use.
type Proxy struct {
	guard *Guard
	opts  netx.ProxyOptions
	// ln and server are the proxy's own listener and server
	// (ListenProxy); nil for a proxy of NewProxy, which a server of the
	// caller's serves.
	ln        net.Listener
	server    *proxyserver.Server
	forward   *httputil.ReverseProxy
	transport *http.Transport
	// dialUpstream reaches a target through netx.ProxyOptions.Upstream; nil
	// means direct.
	dialUpstream netx.DialFunc

	mu      sync.Mutex
	closed  bool
	tunnels map[net.Conn]struct{}
	failed  map[string]error
	stats   ProxyStats
	wg      sync.WaitGroup
}

// ListenProxy starts a filtering proxy on 127.0.0.1 with a random port.
// Close it when done.
func (g *Guard) ListenProxy(opts netx.ProxyOptions) (*Proxy, error) {
	p, err := g.NewProxy(opts)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("guard: proxy: %w", err)
	}
	p.ln = ln
	p.server = proxyserver.Serve(ln, p)
	return p, nil
}

// NewProxy returns a filtering proxy that listens nowhere: an
// http.Handler for a server of the caller's (one that serves many
// proxies, say), whose URL is empty. Close it when done: that cuts its
// tunnels; the requests it is forwarding end with their contexts.
func (g *Guard) NewProxy(opts netx.ProxyOptions) (*Proxy, error) {
	if u := opts.Upstream; u != nil {
		switch {
		case u.Host == "":
			return nil, errors.New("guard: upstream proxy has no host")
		case u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "socks5" && u.Scheme != "socks5h":
			return nil, fmt.Errorf("guard: upstream proxy scheme %q is not http, https, socks5 or socks5h", u.Scheme)
		}
	}
	p := &Proxy{
		guard:   g,
		opts:    opts,
		tunnels: map[net.Conn]struct{}{},
		failed:  map[string]error{},
	}
	if opts.Upstream != nil {
		p.dialUpstream = g.Dialer(opts.Upstream)
	}
	p.transport = &http.Transport{
		DialContext:            p.dialAdmitted,
		TLSClientConfig:        netx.TLSConfig(""),
		TLSHandshakeTimeout:    tlsHandshakeTimeout,
		ResponseHeaderTimeout:  proxyResponseTimeout,
		MaxResponseHeaderBytes: proxyserver.MaxHeaderBytes,
		DisableCompression:     true,
		IdleConnTimeout:        30 * time.Second,
		// As many as Chromium opens to one host (6), so a page's
		// parallel requests reuse their connections instead of
		// dialing again once the first two are idle.
		MaxIdleConnsPerHost: 6,
	}
	p.forward = &httputil.ReverseProxy{
		Rewrite:   func(*httputil.ProxyRequest) {},
		Transport: p.transport,
		ModifyResponse: func(resp *http.Response) error {
			if t, ok := resp.Request.Context().Value(admittedKey{}).(*admitted); ok {
				p.succeeded(t)
			}
			return nil
		},
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
		ErrorHandler:  p.forwardError,
	}
	return p, nil
}

// URL is the proxy's address as a URL, for a client's proxy setting;
// empty for a proxy of NewProxy.
func (p *Proxy) URL() string {
	if p.ln == nil {
		return ""
	}
	return "http://" + p.ln.Addr().String()
}

// Stats returns the counts so far.
func (p *Proxy) Stats() ProxyStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// Counts returns how many requests the policy refused and how many
// netx.ProxyOptions.Block refused so far.
func (p *Proxy) Counts() (refused, blocked int) {
	s := p.Stats()
	return s.Refused, s.Blocked
}

// Failure returns why the last request to host:port was refused or could
// not be served: netx.ErrNotAllowed, netx.ErrBlocked, a *ResolveError or a dial
// error. It is nil when that request went through or none was made. The
// host's case and a trailing dot do not matter.
func (p *Proxy) Failure(host string, port uint16) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed[hostKey(canonicalHost(host), port)]
}

// Close stops the proxy and cuts every connection and tunnel it holds.
// Each step is idempotent, so Close is.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	for c := range p.tunnels {
		c.Close()
	}
	p.mu.Unlock()
	var err error
	if p.server != nil {
		err = p.server.Close()
	}
	p.wg.Wait()
	p.transport.CloseIdleConnections()
	return err
}

// ServeHTTP serves one proxy request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	if !r.URL.IsAbs() || (r.URL.Scheme != "http" && r.URL.Scheme != "https") {
		http.Error(w, "only proxy requests are served here", http.StatusBadRequest)
		return
	}
	t, ok := p.admitRequest(w, r, r.URL.Host, r.URL.Scheme)
	if !ok {
		return
	}
	r = r.WithContext(context.WithValue(r.Context(), admittedKey{}, t))
	if isUpgrade(r.Header) && r.URL.Scheme == "http" {
		p.upgrade(w, r, t)
		return
	}
	p.forward.ServeHTTP(w, r)
}

// admitted is a target the policy let through, with the addresses it
// was checked at.
type admitted struct {
	host  string
	port  uint16
	addrs []netip.Addr
}

type admittedKey struct{}

// admit decides on host:port. On refusal the returned target still
// names what was refused.
func (p *Proxy) admit(ctx context.Context, host string, port uint16) (*admitted, error) {
	t := &admitted{host: host, port: port}
	switch {
	case p.opts.RefuseAll:
		return t, netx.ErrNotAllowed
	case p.opts.Block != nil && p.opts.Block(host):
		return t, netx.ErrBlocked
	}
	addrs, err := p.guard.Resolve(ctx, host)
	if err != nil {
		return t, err
	}
	t.addrs = addrs
	return t, nil
}

// dial connects to an admitted target: directly to the checked
// addresses, or through the upstream, which the guard's Dialer asks for
// a checked address (never the name).
func (p *Proxy) dial(ctx context.Context, t *admitted) (net.Conn, error) {
	if p.dialUpstream != nil {
		return p.dialUpstream(ctx, "tcp", hostKey(t.host, t.port))
	}
	return p.guard.DialAddrs(ctx, "tcp", t.addrs, t.port)
}

// dialAdmitted is the forward transport's dialer: it dials only the
// target admitted for the request, at the addresses it was checked at.
// addr is compared in the admitted target's form (lower case, no
// trailing dot), as the transport spells it as the URL does.
func (p *Proxy) dialAdmitted(ctx context.Context, _, addr string) (net.Conn, error) {
	t, ok := ctx.Value(admittedKey{}).(*admitted)
	if !ok {
		return nil, netx.ErrNotAllowed
	}
	if host, port, err := splitTarget(addr, ""); err != nil || host != t.host || port != t.port {
		return nil, netx.ErrNotAllowed
	}
	return p.dial(ctx, t)
}

// admitRequest decides on the target hostport of r, answering r when it
// is malformed or refused.
func (p *Proxy) admitRequest(w http.ResponseWriter, r *http.Request, hostport, scheme string) (*admitted, bool) {
	host, port, err := splitTarget(hostport, scheme)
	if err != nil {
		http.Error(w, "bad target", http.StatusBadRequest)
		return nil, false
	}
	t, err := p.admit(r.Context(), host, port)
	if err != nil {
		p.refuse(w, t, err)
		return nil, false
	}
	return t, true
}

// connect serves a CONNECT tunnel.
func (p *Proxy) connect(w http.ResponseWriter, r *http.Request) {
	t, ok := p.admitRequest(w, r, r.Host, "")
	if !ok {
		return
	}
	p.tunnel(w, r, t, nil, "HTTP/1.1 200 Connection Established\r\n\r\n")
}

// upgrade serves a plain-HTTP protocol upgrade (a ws:// WebSocket sent
// in absolute form rather than through CONNECT) by sending the request to
// the target and joining the two connections.
func (p *Proxy) upgrade(w http.ResponseWriter, r *http.Request, t *admitted) {
	p.tunnel(w, r, t, func(ctx context.Context, remote net.Conn) error {
		out := r.Clone(ctx)
		for _, h := range []string{"Proxy-Connection", "Proxy-Authorization", "Keep-Alive"} {
			out.Header.Del(h)
		}
		return out.Write(remote)
	}, "")
}

// tunnel dials t, lets prepare write to it first (when set), takes over
// the client's connection, sends it greeting and joins the two.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request, t *admitted, prepare func(context.Context, net.Conn) error, greeting string) {
	ctx, cancel := context.WithTimeout(r.Context(), dialTimeout+tlsHandshakeTimeout)
	defer cancel()
	remote, err := p.dial(ctx, t)
	if err == nil && prepare != nil {
		if err = prepare(ctx, remote); err != nil {
			remote.Close()
		}
	}
	if err != nil {
		p.refuse(w, t, err)
		return
	}
	client, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		remote.Close()
		return
	}
	if _, err := io.WriteString(client, greeting); err != nil {
		client.Close()
		remote.Close()
		return
	}
	p.succeeded(t)
	p.splice(client, buf.Reader, remote)
}

// splice copies both ways until either side ends; Close cuts it.
func (p *Proxy) splice(client net.Conn, pending *bufio.Reader, remote net.Conn) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		client.Close()
		remote.Close()
		return
	}
	p.tunnels[client] = struct{}{}
	p.tunnels[remote] = struct{}{}
	p.wg.Add(1)
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.tunnels, client)
		delete(p.tunnels, remote)
		p.mu.Unlock()
		p.wg.Done()
	}()
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(remote, io.MultiReader(pending, client))
		closeWrite(remote)
	}()
	io.Copy(client, remote)
	closeWrite(client)
	<-done
	client.Close()
	remote.Close()
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

// forwardError answers a forwarded request the transport could not
// complete.
func (p *Proxy) forwardError(w http.ResponseWriter, r *http.Request, err error) {
	t, ok := r.Context().Value(admittedKey{}).(*admitted)
	if !ok {
		http.Error(w, "proxy error", http.StatusBadGateway)
		return
	}
	if r.Context().Err() != nil {
		// The client went away; nothing failed on the target's side.
		return
	}
	p.refuse(w, t, err)
}

// refuse records why t was not served and answers the client: 403 for a
// refusal, 502 when the target could not be resolved or reached. The
// body never says more than that.
func (p *Proxy) refuse(w http.ResponseWriter, t *admitted, err error) {
	status := http.StatusBadGateway
	p.mu.Lock()
	switch {
	case errors.Is(err, netx.ErrNotAllowed):
		p.stats.Refused++
		status = http.StatusForbidden
	case errors.Is(err, netx.ErrBlocked):
		p.stats.Blocked++
		status = http.StatusForbidden
	default:
		p.stats.Failed++
	}
	p.failed[hostKey(t.host, t.port)] = err
	p.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Connection", "close")
	w.WriteHeader(status)
	io.WriteString(w, http.StatusText(status)+"\n")
}

func (p *Proxy) succeeded(t *admitted) {
	p.mu.Lock()
	delete(p.failed, hostKey(t.host, t.port))
	p.mu.Unlock()
}

// splitTarget returns the lower-case host without brackets or a trailing
// dot, and the port (the scheme's default when absent).
func splitTarget(hostport, scheme string) (string, uint16, error) {
	host, portStr, err := net.SplitHostPort(hostport)
	if err != nil {
		host, portStr = hostport, ""
	}
	host = canonicalHost(host)
	if host == "" {
		return "", 0, errors.New("guard: empty host")
	}
	if portStr == "" {
		switch scheme {
		case "http":
			return host, 80, nil
		case "https":
			return host, 443, nil
		}
		return "", 0, errors.New("guard: missing port")
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil || port == 0 {
		return "", 0, errors.New("guard: bad port")
	}
	return host, uint16(port), nil
}

// canonicalHost is host in lower case, without brackets or a trailing
// dot: the form the proxy admits, counts and records hosts in.
func canonicalHost(host string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
}

func hostKey(host string, port uint16) string {
	return net.JoinHostPort(host, strconv.Itoa(int(port)))
}

func isUpgrade(h http.Header) bool {
	return httpguts.HeaderValuesContainsToken(h["Connection"], "upgrade") && h.Get("Upgrade") != ""
}
