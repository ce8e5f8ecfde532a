// Package dns looks up DNS records and checks DNSSEC for the sitediag
// operations, on github.com/miekg/dns.
//
// Every query goes to the servers of a Resolver: the operator's configured
// servers, or the system's. The same resolver answers the SSRF guard's
// address lookups, so what a tool connects to is what the operator's
// servers say, or, for a name the hosts file lists, what that file says,
// as the system resolver does.
package dns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	mdns "github.com/miekg/dns"
)

// ednsBufferSize is the DNS Flag Day 2020 recommendation.
const ednsBufferSize = 1232

const defaultQueryTimeout = 3 * time.Second

var (
	// ErrNoServers means the resolver has no server to ask.
	ErrNoServers = errors.New("dns: no DNS servers configured")
	// ErrNoAnswer means no server answered.
	ErrNoAnswer = errors.New("dns: no server answered")
	// ErrTimeout is wrapped with ErrNoAnswer when the last server tried
	// did not answer in time.
	ErrTimeout = errors.New("dns: timed out")
	// ErrMalformed is wrapped with ErrNoAnswer when a server answered
	// with a packet that is not a DNS message.
	ErrMalformed = errors.New("dns: malformed answer")
	// ErrWrongQuestion is wrapped with ErrNoAnswer when a server's answer
	// is for another question than the one asked; such answers are
	// dropped, as dig does.
	ErrWrongQuestion = errors.New("dns: answer to another question")
)

// Resolver sends queries to a fixed list of servers. The zero value uses
// the servers of /etc/resolv.conf. It is safe for concurrent use.
type Resolver struct {
	// Servers are host:port addresses. A query goes to the first, and
	// to each next one in turn while none answers. If empty, the
	// nameservers of /etc/resolv.conf are used.
	Servers []string
	// Timeout bounds one exchange with one server over one transport
	// (UDP, then TCP after a truncated answer). If zero, 3 s.
	Timeout time.Duration
	// TrustAnchor is where CheckDNSSEC's chain of trust starts. If nil,
	// the IANA root anchor (RootTrustAnchor).
	TrustAnchor *TrustAnchor
	// HostsFile answers LookupAddrs for the names it lists, before any
	// server is asked, as the system resolver does ("files" before
	// "dns"); record lookups and DNSSEC checks ask the servers only. If
	// empty, SystemHostsFile; a file that does not exist lists nothing.
	// It is read again when it changes.
	HostsFile string

	hosts      hostsFile
	once       sync.Once
	sysServers []string
	sysErr     error
}

// SystemServers returns the nameservers of /etc/resolv.conf as host:port.
func SystemServers() ([]string, error) {
	conf, err := mdns.ClientConfigFromFile("/etc/resolv.conf")
	if err != nil {
		return nil, fmt.Errorf("dns: reading resolv.conf: %w", err)
	}
	servers := make([]string, 0, len(conf.Servers))
	for _, s := range conf.Servers {
		servers = append(servers, net.JoinHostPort(s, conf.Port))
	}
	return servers, nil
}

func (r *Resolver) servers() ([]string, error) {
	if len(r.Servers) > 0 {
		return r.Servers, nil
	}
	r.once.Do(func() { r.sysServers, r.sysErr = SystemServers() })
	if r.sysErr != nil {
		return nil, r.sysErr
	}
	if len(r.sysServers) == 0 {
		return nil, ErrNoServers
	}
	return r.sysServers, nil
}

func (r *Resolver) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return defaultQueryTimeout
}

// Exchange sends msg with EDNS0 (1232-byte buffer; an OPT record is added
// to msg when it has none) over UDP, retries over TCP when the answer is
// truncated, and asks the servers in turn until one answers: a server
// that does not answer, or answers SERVFAIL or REFUSED, passes the query
// on to the next. Each exchange with one server is bounded by Timeout, by
// ctx, and, when ctx has a deadline, by an equal share of the time left
// among the servers not yet asked, so that every server is asked before
// the deadline. A response with any rcode is returned as is: NXDOMAIN, or
// SERVFAIL when no server does better, is an answer, not an error.
//
// When no server answers, the error wraps ErrNoAnswer, and ErrTimeout too
// when the last attempt ran out of time (Timeout or ctx's deadline).
func (r *Resolver) Exchange(ctx context.Context, msg *mdns.Msg) (*mdns.Msg, error) {
	servers, err := r.servers()
	if err != nil {
		return nil, err
	}
	if msg.IsEdns0() == nil {
		msg.SetEdns0(ednsBufferSize, false)
	}
	dead := deadServersOf(ctx)
	servers = dead.alive(servers)
	var lastErr error
	var fallback *mdns.Msg
	for i, server := range servers {
		attemptCtx, cancel := shareOfDeadline(ctx, len(servers)-i)
		resp, err := r.exchangeWith(attemptCtx, msg, server)
		cancel()
		if err != nil {
			lastErr = err
			if ctx.Err() != nil {
				break
			}
			if isTimeout(err) {
				dead.add(server)
			}
			continue
		}
		if (resp.Rcode == mdns.RcodeServerFailure || resp.Rcode == mdns.RcodeRefused) && i+1 < len(servers) {
			fallback = resp
			continue
		}
		return resp, nil
	}
	if fallback != nil {
		return fallback, nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		lastErr = ctxErr
	} else if deadline, ok := ctx.Deadline(); ok && !time.Now().Before(deadline) {
		// The last socket deadline, ctx's own, fired before ctx's timer.
		lastErr = fmt.Errorf("%w: %w", context.DeadlineExceeded, lastErr)
	}
	if isTimeout(lastErr) {
		return nil, fmt.Errorf("%w: %w: %w", ErrNoAnswer, ErrTimeout, lastErr)
	}
	return nil, fmt.Errorf("%w: %w", ErrNoAnswer, lastErr)
}

// shareOfDeadline bounds ctx by an equal share, among the n servers left
// to ask, of the time left before ctx's deadline.
func shareOfDeadline(ctx context.Context, n int) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok || n <= 1 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, time.Until(deadline)/time.Duration(n))
}

// deadServers remembers, for one request, the servers that timed out,
// so that the request's later queries go to the others first.
type deadServers struct {
	mu   sync.Mutex
	dead map[string]bool
}

type deadServersKey struct{}

// withDeadServers returns ctx carrying a fresh memory of dead servers.
func withDeadServers(ctx context.Context) context.Context {
	return context.WithValue(ctx, deadServersKey{}, &deadServers{})
}

// deadServersOf returns ctx's memory, or nil (remembering nothing).
func deadServersOf(ctx context.Context) *deadServers {
	d, _ := ctx.Value(deadServersKey{}).(*deadServers)
	return d
}

func (d *deadServers) add(server string) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dead == nil {
		d.dead = map[string]bool{}
	}
	d.dead[server] = true
}

// alive returns servers without the dead ones, or all of them when
// every one is dead.
func (d *deadServers) alive(servers []string) []string {
	if d == nil {
		return servers
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.dead) == 0 {
		return servers
	}
	var out []string
	for _, s := range servers {
		if !d.dead[s] {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return servers
	}
	return out
}

// isTimeout reports whether err means time ran out: a deadline of ctx or
// of a socket.
func isTimeout(err error) bool {
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		(errors.As(err, &netErr) && netErr.Timeout())
}

// exchangeWith asks server over UDP, and over TCP when the answer is
// truncated or does not unpack (an answer larger than the buffer
// advertised, cut short).
func (r *Resolver) exchangeWith(ctx context.Context, msg *mdns.Msg, server string) (*mdns.Msg, error) {
	resp, err := r.exchangeOver(ctx, "udp", msg, server)
	if err == nil && !resp.Truncated {
		return resp, nil
	}
	if err != nil && !errors.Is(err, mdns.ErrBuf) && !errors.Is(err, ErrMalformed) {
		return nil, err
	}
	tcpResp, tcpErr := r.exchangeOver(ctx, "tcp", msg, server)
	if tcpErr != nil && err != nil {
		return nil, fmt.Errorf("%w; over TCP: %w", err, tcpErr)
	}
	return tcpResp, tcpErr
}

// exchangeOver sends msg to server over network and waits for the answer
// until Timeout, ctx's deadline or ctx's cancellation. An answer that
// does not unpack is ErrMalformed; one for another question,
// ErrWrongQuestion.
func (r *Resolver) exchangeOver(ctx context.Context, network string, msg *mdns.Msg, server string) (*mdns.Msg, error) {
	c := &mdns.Client{Net: network, Timeout: r.timeout(), UDPSize: ednsBufferSize}
	conn, err := c.DialContext(ctx, server)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	// miekg/dns honours ctx's deadline but not its cancellation: end
	// the exchange when ctx ends.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	resp, _, err := c.ExchangeWithConnContext(ctx, msg, conn)
	var unpackErr *mdns.Error
	switch {
	case errors.As(err, &unpackErr) && !errors.Is(err, mdns.ErrId):
		return nil, fmt.Errorf("%w from %s over %s: %w", ErrMalformed, server, network, err)
	case err != nil && ctx.Err() != nil:
		// ctx's end closed the connection: say why, not "use of closed
		// network connection".
		return nil, fmt.Errorf("%w: %w", ctx.Err(), err)
	case err != nil:
		return nil, err
	case !sameQuestion(resp.Question, msg.Question):
		return nil, fmt.Errorf("%w: %s answered %v to %v", ErrWrongQuestion, server, resp.Question, msg.Question)
	}
	return resp, nil
}

// sameQuestion compares question sections, names without regard to case.
func sameQuestion(a, b []mdns.Question) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i].Name, b[i].Name) || a[i].Qtype != b[i].Qtype || a[i].Qclass != b[i].Qclass {
			return false
		}
	}
	return true
}

// LookupAddrs resolves host to its IPv4 and IPv6 addresses: from the hosts
// file when it lists host, else querying A and AAAA concurrently (over one
// socket first, see exchangePair) and following CNAMEs inside the
// answers. An IP literal is returned as is. A name the servers answered for but that has no
// address yields a *NotFoundError; when neither query yields an address
// and one got no answer or an error code, the error is that query's (see
// Exchange, and *RcodeError).
func (r *Resolver) LookupAddrs(ctx context.Context, host string) ([]netip.Addr, error) {
	if addr, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{addr}, nil
	}
	hostsFile := r.HostsFile
	if hostsFile == "" {
		hostsFile = SystemHostsFile
	}
	if addrs := r.hosts.lookup(hostsFile, host); len(addrs) > 0 {
		return sortAddrs(slices.Clone(addrs)), nil
	}
	pair, ctx, err := r.exchangePair(ctx, host)
	if err != nil {
		return nil, err
	}
	var addrs [2][]netip.Addr
	var errs [2]error
	var wg sync.WaitGroup
	for i, qtype := range addrTypes() {
		switch {
		case pair.got[i] != nil:
			addrs[i], errs[i] = addrsOf(host, qtype, pair.got[i])
		case pair.failed[i] != nil:
			errs[i] = pair.failed[i]
		default:
			wg.Go(func() { addrs[i], errs[i] = r.lookupType(ctx, host, qtype) })
		}
	}
	wg.Wait()
	if all := slices.Concat(addrs[0], addrs[1]); len(all) > 0 {
		return sortAddrs(all), nil
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return nil, &NotFoundError{Name: host}
}

// sortAddrs puts IPv4 addresses first (the fixtures and most hosts answer
// there), keeping the order within each family.
func sortAddrs(addrs []netip.Addr) []netip.Addr {
	slices.SortStableFunc(addrs, func(a, b netip.Addr) int {
		if a.Is4() != b.Is4() {
			if a.Is4() {
				return -1
			}
			return 1
		}
		return 0
	})
	return addrs
}

// NotFoundError means the servers answered but the name has no address.
type NotFoundError struct {
	Name string
}

func (e *NotFoundError) Error() string { return "dns: no address for " + e.Name }

func (r *Resolver) lookupType(ctx context.Context, host string, qtype uint16) ([]netip.Addr, error) {
	msg := new(mdns.Msg)
	msg.SetQuestion(mdns.Fqdn(host), qtype)
	resp, err := r.Exchange(ctx, msg)
	if err != nil {
		return nil, err
	}
	return addrsOf(host, qtype, resp)
}

// addrsOf returns the addresses in resp, the answer to host's qtype
// question; an error code other than NXDOMAIN is an *RcodeError.
func addrsOf(host string, qtype uint16, resp *mdns.Msg) ([]netip.Addr, error) {
	if resp.Rcode != mdns.RcodeSuccess && resp.Rcode != mdns.RcodeNameError {
		return nil, &RcodeError{Name: hostName(mdns.Fqdn(host)), Type: mdns.TypeToString[qtype], Rcode: rcodeString(resp.Rcode)}
	}
	var addrs []netip.Addr
	for _, rr := range resp.Answer {
		switch rr := rr.(type) {
		case *mdns.A:
			if a, ok := netip.AddrFromSlice(rr.A.To4()); ok {
				addrs = append(addrs, a)
			}
		case *mdns.AAAA:
			if a, ok := netip.AddrFromSlice(rr.AAAA); ok {
				addrs = append(addrs, a)
			}
		}
	}
	return addrs, nil
}

// Ping asks the servers for the root NS set, as Exchange does, and
// reports whether one answered, with any rcode. It backs the resolver
// health check.
func (r *Resolver) Ping(ctx context.Context) error {
	msg := new(mdns.Msg)
	msg.SetQuestion(".", mdns.TypeNS)
	_, err := r.Exchange(ctx, msg)
	return err
}
