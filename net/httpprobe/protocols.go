package httpprobe

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"golang.org/x/sync/errgroup"

	"github.com/sitediag/sitediag/internal/tracing"
	"github.com/sitediag/sitediag/net/netx"
)

// DefaultProbeTimeout bounds each protocol probe when
// ProtocolOptions.Timeout is zero.
const DefaultProbeTimeout = 10 * time.Second

// quicHandshakeIdle is how long a QUIC handshake may wait for the
// server's first answer: UDP to a closed port is usually silent, so this
// is how long a dead HTTP/3 endpoint costs.
const quicHandshakeIdle = 3 * time.Second

// ProtocolSupport says which HTTP versions a site speaks, each from a
// real exchange.
type ProtocolSupport struct {
	// HTTP10: a request sent as HTTP/1.0 got a valid HTTP/1.x response
	// (not 426 or 505).
	HTTP10 bool `json:"http10"`
	// HTTP11: a request sent as HTTP/1.1 got an HTTP/1.1 response (not
	// 426 or 505). Over TLS both offer ALPN http/1.1 only.
	HTTP11 bool `json:"http11"`
	// HTTP2: TLS negotiated ALPN h2 and a request over HTTP/2 got a
	// response; for http:// targets, a prior-knowledge (h2c) request did.
	HTTP2 bool `json:"http2"`
	// HTTP3: the site advertised h3 in Alt-Svc, a QUIC handshake with the
	// advertised endpoint succeeded and an HTTP/3 request got a response.
	HTTP3 bool `json:"http3"`
	// HTTP3SupportedVersion lists the HTTP/3 tokens the site advertises
	// in Alt-Svc (h3, h3-29, …) when HTTP3 is true; empty otherwise.
	HTTP3SupportedVersion []string `json:"http3SupportedVersion"`
}

// UDP is what the HTTP/3 probe needs of the guard: resolution to allowed
// addresses and a socket that sends only to them (sitediag's guard).
type UDP interface {
	Resolve(ctx context.Context, host string) ([]netip.Addr, error)
	ListenPacket(ctx context.Context) (net.PacketConn, error)
}

// ProtocolOptions shape Protocols. The zero value is the default.
type ProtocolOptions struct {
	// Timeout bounds each probe. If zero, DefaultProbeTimeout.
	Timeout time.Duration
	// AltSvc are Alt-Svc values already seen on target (from an earlier
	// response); the probes' own responses add to them. Empty means none
	// seen yet.
	AltSvc []string
}

// Protocols probes target over HTTP/1.0, HTTP/1.1 and HTTP/2 at once,
// connecting with dial (a guarded dialer, through a proxy or not), then
// over HTTP/3 when an Alt-Svc header advertises it for an https target.
// HTTP/3 goes over UDP, which proxies do not carry: with udp nil (as when
// dial goes through a proxy) no QUIC handshake is made, and HTTP3 is true
// when the site advertises an h3 token.
//
// A probe the site does not answer is a false finding. The error is a
// *FetchError when no TCP probe could connect at all, or the guard's
// refusal.
func Protocols(ctx context.Context, dial netx.DialFunc, udp UDP, target *url.URL, opts ProtocolOptions) (*ProtocolSupport, error) {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	type probe struct {
		run    func(context.Context) (bool, []string, error)
		result *bool
		altSvc []string
		err    error
	}
	res := &ProtocolSupport{HTTP3SupportedVersion: []string{}}
	probes := []*probe{
		{run: func(ctx context.Context) (bool, []string, error) { return probeHTTP1(ctx, dial, target, 0) }, result: &res.HTTP10},
		{run: func(ctx context.Context) (bool, []string, error) { return probeHTTP1(ctx, dial, target, 1) }, result: &res.HTTP11},
		{run: func(ctx context.Context) (bool, []string, error) { return probeHTTP2(ctx, dial, target) }, result: &res.HTTP2},
	}
	var g errgroup.Group
	for _, p := range probes {
		g.Go(func() error {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			*p.result, p.altSvc, p.err = p.run(ctx)
			return nil
		})
	}
	g.Wait()
	altSvc := slices.Clone(opts.AltSvc)
	var errs []error
	for _, p := range probes {
		altSvc = append(altSvc, p.altSvc...)
		if p.err != nil {
			errs = append(errs, p.err)
		}
	}
	if len(errs) == len(probes) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if errors.Is(errs[0], netx.ErrNotAllowed) {
			return nil, netx.ErrNotAllowed
		}
		return nil, &FetchError{URL: target.String(), Err: errs[0]}
	}

	tokens := h3Tokens(parseAltSvc(altSvc))
	if target.Scheme != "https" || len(tokens) == 0 {
		return res, nil
	}
	if udp == nil {
		res.HTTP3 = true
	} else {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		res.HTTP3 = probeHTTP3(ctx, udp, target, parseAltSvc(altSvc), timeout)
	}
	if res.HTTP3 {
		res.HTTP3SupportedVersion = tokens
	}
	return res, nil
}

// hostPort is target's host:port for dialling.
func hostPort(target *url.URL) string {
	port := target.Port()
	if port == "" {
		port = "80"
		if target.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(target.Hostname(), port)
}

// dialApp connects to target, with TLS offering alpn for https. The
// connection closes when ctx ends. An error here means the site could
// not be reached at all.
func dialApp(ctx context.Context, dial netx.DialFunc, target *url.URL, alpn ...string) (net.Conn, error) {
	conn, err := dial(ctx, "tcp", hostPort(target))
	if err != nil {
		return nil, err
	}
	if deadline, ok := ctx.Deadline(); ok {
		conn.SetDeadline(deadline)
	}
	if target.Scheme != "https" {
		return conn, nil
	}
	tconn := tls.Client(conn, netx.TLSConfig(target.Hostname(), alpn...))
	if err := tracing.Handshake(ctx, tconn); err != nil {
		conn.Close()
		return nil, err
	}
	return tconn, nil
}

// probeHTTP1 sends one GET as HTTP/1.<minor> on its own connection.
func probeHTTP1(ctx context.Context, dial netx.DialFunc, target *url.URL, minor int) (bool, []string, error) {
	conn, err := dialApp(ctx, dial, target, "http/1.1")
	if err != nil {
		return false, nil, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	_, err = fmt.Fprintf(conn, "GET %s HTTP/1.%d\r\nHost: %s\r\nUser-Agent: %s\r\nAccept: */*\r\nConnection: close\r\n\r\n",
		target.RequestURI(), minor, target.Host, userAgent)
	if err != nil {
		return false, nil, nil
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return false, nil, nil
	}
	resp.Body.Close()
	refused := resp.StatusCode == http.StatusUpgradeRequired || resp.StatusCode == http.StatusHTTPVersionNotSupported
	ok := resp.ProtoMajor == 1 && resp.ProtoMinor >= minor && !refused
	return ok, resp.Header.Values("Alt-Svc"), nil
}

// errNoH2 means the TLS handshake did not negotiate h2: the site does
// not speak HTTP/2 there.
var errNoH2 = errors.New("httpprobe: h2 not negotiated")

// probeHTTP2 negotiates h2 by ALPN (https) or speaks it with prior
// knowledge (http), and sends one GET. The connection is made by dialApp
// on dial, so it is guarded as every other probe's; net/http speaks
// HTTP/2 over it.
func probeHTTP2(ctx context.Context, dial netx.DialFunc, target *url.URL) (bool, []string, error) {
	var dialErr error
	connect := func(ctx context.Context, _, _ string) (net.Conn, error) {
		conn, err := dialApp(ctx, dial, target, "h2", "http/1.1")
		if err != nil {
			dialErr = err
			return nil, err
		}
		if tconn, ok := conn.(*tls.Conn); ok && tconn.ConnectionState().NegotiatedProtocol != "h2" {
			conn.Close()
			return nil, errNoH2
		}
		return conn, nil
	}
	var protocols http.Protocols
	protocols.SetHTTP2(true)
	protocols.SetUnencryptedHTTP2(true)
	transport := &http.Transport{
		Protocols:      &protocols,
		DialContext:    connect,
		DialTLSContext: connect,
	}
	// NewClientConn dials synchronously, so dialErr is set when it returns.
	cc, err := transport.NewClientConn(ctx, target.Scheme, hostPort(target))
	switch {
	case dialErr != nil:
		return false, nil, dialErr
	case err != nil && ctx.Err() != nil:
		return false, nil, ctx.Err()
	case err != nil:
		return false, nil, nil
	}
	defer cc.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target.String(), nil)
	if err != nil {
		return false, nil, err
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := cc.RoundTrip(req)
	if err != nil {
		return false, nil, nil
	}
	resp.Body.Close()
	return resp.ProtoMajor == 2, resp.Header.Values("Alt-Svc"), nil
}

// probeHTTP3 tries each advertised h3 endpoint until one answers a GET.
func probeHTTP3(ctx context.Context, udp UDP, target *url.URL, alts []altService, timeout time.Duration) bool {
	tried := map[string]bool{}
	for _, alt := range alts {
		host := alt.host
		if host == "" {
			host = target.Hostname()
		}
		key := net.JoinHostPort(host, alt.port)
		if alt.proto != "h3" || tried[key] {
			continue
		}
		tried[key] = true
		port, err := parsePort(alt.port)
		if err != nil {
			continue
		}
		addrs, err := udp.Resolve(ctx, host)
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if http3Get(ctx, udp, target, netip.AddrPortFrom(a, port), timeout) == nil {
				return true
			}
			if ctx.Err() != nil {
				return false
			}
		}
	}
	return false
}

// http3Get makes a QUIC handshake with addr (TLS for target's name, ALPN
// h3) on a guarded socket and sends one GET for target.
func http3Get(ctx context.Context, udp UDP, target *url.URL, addr netip.AddrPort, timeout time.Duration) error {
	pc, err := udp.ListenPacket(ctx)
	if err != nil {
		return err
	}
	defer pc.Close()
	conn, err := quic.Dial(ctx, pc, net.UDPAddrFromAddrPort(addr), netx.TLSConfig(target.Hostname(), http3.NextProtoH3),
		&quic.Config{HandshakeIdleTimeout: min(timeout, quicHandshakeIdle), MaxIdleTimeout: timeout})
	if err != nil {
		return err
	}
	defer conn.CloseWithError(0, "")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target.String(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := (&http3.Transport{}).NewClientConn(conn).RoundTrip(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

func parsePort(s string) (uint16, error) {
	port, err := strconv.ParseUint(s, 10, 16)
	if err != nil || port == 0 {
		return 0, fmt.Errorf("httpprobe: bad port %q", s)
	}
	return uint16(port), nil
}

// altService is one alternative of an Alt-Svc header (RFC 7838).
type altService struct {
	proto, host, port string
}

// parseAltSvc reads Alt-Svc values such as `h3=":443"; ma=86400,
// h3-29="alt.example:443"`. "clear" and malformed entries are skipped.
func parseAltSvc(values []string) []altService {
	var out []altService
	for _, v := range values {
		for _, entry := range splitQuoted(v, ',') {
			alt, _, _ := strings.Cut(entry, ";")
			proto, authority, ok := strings.Cut(strings.TrimSpace(alt), "=")
			if !ok {
				continue
			}
			proto, err := url.PathUnescape(strings.TrimSpace(proto))
			if err != nil {
				continue
			}
			authority = strings.Trim(strings.TrimSpace(authority), `"`)
			host, port, err := net.SplitHostPort(authority)
			if err != nil {
				continue
			}
			out = append(out, altService{proto: proto, host: host, port: port})
		}
	}
	return out
}

// splitQuoted splits s on sep outside double quotes.
func splitQuoted(s string, sep rune) []string {
	var parts []string
	quoted, start := false, 0
	for i, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
		case r == sep && !quoted:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// h3Tokens lists the HTTP/3 protocol ids (h3 and its drafts) among alts,
// once each, in order.
func h3Tokens(alts []altService) []string {
	var out []string
	for _, a := range alts {
		if (a.proto == "h3" || strings.HasPrefix(a.proto, "h3-")) && !slices.Contains(out, a.proto) {
			out = append(out, a.proto)
		}
	}
	return out
}
