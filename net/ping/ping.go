// Package ping measures round trips to one address: ICMP echo with
// github.com/prometheus-community/pro-bing when the process may open ICMP
// sockets (raw when privileged, datagram "unprivileged" sockets when the
// system allows them), else TCP connects to port 443, then 80.
//
// The caller pins the address (sitediag resolves and checks it with its
// SSRF guard first) and, for the TCP fallback, supplies the dial function.
// Loss, even total, is a result; Ping fails only when nothing could be
// sent.
package ping

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	probing "github.com/prometheus-community/pro-bing"
	"github.com/sitediag/sitediag/internal/defaults"
	"github.com/sitediag/sitediag/net/netx"
	"golang.org/x/net/icmp"
)

// Defaults of Options.
const (
	DefaultCount    = 4
	DefaultInterval = 200 * time.Millisecond
	DefaultWait     = 2 * time.Second
)

// tcpPorts are the ports the TCP fallback tries, in order.
var tcpPorts = []uint16{443, 80}

// TCPPorts returns the ports the TCP fallback tries, in order (a new
// slice on each call).
func TCPPorts() []uint16 { return slices.Clone(tcpPorts) }

// Method is how the requests were sent.
type Method string

// The methods.
const (
	MethodICMP Method = "icmp"
	MethodTCP  Method = "tcp"
)

// Access is the kind of ICMP socket the process may open.
type Access int

// The kinds, from least to most capable.
const (
	// AccessNone: no ICMP socket; only the TCP fallback works.
	AccessNone Access = iota
	// AccessUnprivileged: ICMP datagram sockets (net.ipv4.ping_group_range);
	// echo works, TTL-limited traces do not.
	AccessUnprivileged
	// AccessRaw: raw ICMP sockets (root or CAP_NET_RAW).
	AccessRaw
)

func (a Access) String() string {
	switch a {
	case AccessRaw:
		return "raw"
	case AccessUnprivileged:
		return "unprivileged"
	}
	return "none"
}

// ICMPAccess reports the kind of ICMP socket the process may open for the
// address family (IPv6 when ipv6 is set), by opening and closing one.
func ICMPAccess(ipv6 bool) Access {
	raw, dgram, laddr := "ip4:icmp", "udp4", "0.0.0.0"
	if ipv6 {
		raw, dgram, laddr = "ip6:ipv6-icmp", "udp6", "::"
	}
	if c, err := icmp.ListenPacket(raw, laddr); err == nil {
		c.Close()
		return AccessRaw
	}
	if c, err := icmp.ListenPacket(dgram, laddr); err == nil {
		c.Close()
		return AccessUnprivileged
	}
	return AccessNone
}

// Options tune a ping. The zero value is the default.
type Options struct {
	// Count is the number of requests. If zero, DefaultCount.
	Count int
	// Interval separates requests. If zero, DefaultInterval.
	Interval time.Duration
	// Wait is how long a request may wait for its reply (after the last
	// request for ICMP, per attempt for TCP). If zero, DefaultWait.
	Wait time.Duration
	// Dial connects for the TCP fallback. If nil, there is no fallback.
	Dial netx.DialFunc
	// TCPOnly skips ICMP and pings with TCP connects.
	TCPOnly bool
	// Allow is the policy for ICMP, which is sent rather than dialled: a
	// ping of an address it refuses fails with netx.ErrNotAllowed before
	// anything is sent. If nil, every address is allowed. (Dial applies
	// its own policy to the TCP fallback.)
	Allow netx.AllowFunc
}

// Reply is one answered request.
type Reply struct {
	// Seq numbers the requests from 0.
	Seq int `json:"seq"`
	// RTT is the round trip in milliseconds.
	RTT float64 `json:"rtt"`
	// TTL is the reply's TTL or hop limit; absent for TCP, where the
	// kernel does not expose it.
	TTL int `json:"ttl,omitempty"`
}

// Result is the outcome of a ping. Times are milliseconds; they are 0
// when nothing answered.
type Result struct {
	// Requests is the number of requests sent (attempts, for TCP).
	Requests int `json:"requests"`
	// Loss is the share of requests without a reply, in percent.
	Loss float64 `json:"loss"`
	// Latency is the average round trip (the same as Avg).
	Latency float64 `json:"latency"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	Avg     float64 `json:"avg"`
	// StdDev is the population standard deviation of the round trips.
	StdDev float64 `json:"stdDev"`
	// IP is the address pinged.
	IP     string `json:"ip"`
	Method Method `json:"method"`
	// Port is the port the TCP fallback used; absent for ICMP.
	Port uint16 `json:"port,omitempty"`
	// Replies are the answered requests in the order they came back.
	Replies []Reply `json:"replies"`
}

var (
	// ErrNotSent means no request could be sent.
	ErrNotSent = errors.New("ping: no request could be sent")
	// ErrNoMethod means no ICMP socket is permitted and no dial
	// function was given for the TCP fallback.
	ErrNoMethod = errors.New("ping: ICMP sockets are not permitted and TCP fallback has no dialer")
)

// Ping sends opts.Count requests to addr and reports the round trips. The
// error wraps ErrNotSent (with the cause) when nothing could be sent,
// ErrNoMethod, netx.ErrNotAllowed, or ctx's error.
func Ping(ctx context.Context, addr netip.Addr, opts Options) (*Result, error) {
	opts = withDefaults(opts)
	addr = addr.WithZone("").Unmap()
	if opts.Allow != nil && !opts.Allow(addr) {
		return nil, fmt.Errorf("ping: %v: %w", addr, netx.ErrNotAllowed)
	}
	var res *Result
	var err error
	switch access := ICMPAccess(addr.Is6()); {
	case !opts.TCPOnly && access != AccessNone:
		res, err = pingICMP(ctx, addr, access == AccessRaw, opts)
	case opts.Dial != nil:
		res, err = pingTCP(ctx, addr, opts)
	default:
		return nil, ErrNoMethod
	}
	if err != nil {
		return nil, err
	}
	res.IP = addr.String()
	summarise(res)
	return res, nil
}

func withDefaults(opts Options) Options {
	opts.Count = defaults.Positive(opts.Count, DefaultCount)
	opts.Interval = defaults.Positive(opts.Interval, DefaultInterval)
	opts.Wait = defaults.Positive(opts.Wait, DefaultWait)
	return opts
}

func pingICMP(ctx context.Context, addr netip.Addr, privileged bool, opts Options) (*Result, error) {
	if err := routable(addr); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotSent, err)
	}
	p := probing.New(addr.String())
	p.SetIPAddr(&net.IPAddr{IP: addr.AsSlice()})
	p.SetPrivileged(privileged)
	p.SetLogger(probing.NoopLogger{})
	p.Count = opts.Count
	p.Interval = opts.Interval
	p.Timeout = time.Duration(opts.Count-1)*opts.Interval + opts.Wait
	res := &Result{Method: MethodICMP}
	var mu sync.Mutex
	var sendErr error
	p.OnRecv = func(pkt *probing.Packet) {
		mu.Lock()
		defer mu.Unlock()
		res.Replies = append(res.Replies, Reply{Seq: pkt.Seq, RTT: ms(pkt.Rtt), TTL: max(pkt.TTL, 0)})
	}
	p.OnSendError = func(_ *probing.Packet, err error) {
		mu.Lock()
		defer mu.Unlock()
		sendErr = err
	}
	runErr, err := runBounded(ctx, p.RunWithContext)
	if err != nil {
		return nil, fmt.Errorf("ping: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("ping: %w", err)
	}
	res.Requests = p.Statistics().PacketsSent
	if res.Requests == 0 {
		return nil, fmt.Errorf("%w: %w", ErrNotSent, firstErr(runErr, sendErr))
	}
	return res, nil
}

// stopGrace is how long pro-bing may take to return once ctx has ended.
const stopGrace = time.Second

// runBounded calls run(ctx) and returns its error, or ctx's error when
// run has not returned stopGrace after ctx ended. pro-bing returns at
// once when ctx ends, except from its send loop, which retries some
// errors (EACCES, ENOBUFS) without looking at ctx: then run is left
// behind so that the caller is never held past its deadline.
func runBounded(ctx context.Context, run func(context.Context) error) (runErr, ctxErr error) {
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	select {
	case err := <-done:
		return err, nil
	case <-ctx.Done():
	}
	timer := time.NewTimer(stopGrace)
	defer timer.Stop()
	select {
	case err := <-done:
		return err, nil
	case <-timer.C:
		return nil, ctx.Err()
	}
}

// routable reports EACCES when the kernel refuses to send to addr (a
// "prohibit" route, or a broadcast address): pro-bing retries that error
// in a loop that never ends, deaf to its context and its timeout. A UDP
// socket's connect makes the same route lookup and sends nothing. Other
// errors are left to the ping itself.
func routable(addr netip.Addr) error {
	conn, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(addr, 9)))
	if err != nil {
		// Only connect's refusal is the route's; a socket that could
		// not be made says nothing about ICMP.
		var sysErr *os.SyscallError
		if errors.As(err, &sysErr) && sysErr.Syscall == "connect" && errors.Is(err, syscall.EACCES) {
			return err
		}
		return nil
	}
	return conn.Close()
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return errors.New("unknown reason")
}

// pingTCP times TCP connects: each request tries the ports in turn until
// one accepts, and later requests keep to the port that did.
func pingTCP(ctx context.Context, addr netip.Addr, opts Options) (*Result, error) {
	res := &Result{Method: MethodTCP}
	ports := tcpPorts
	var lastErr error
	sent := 0
	for seq := range opts.Count {
		if seq > 0 {
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("ping: %w", ctx.Err())
			case <-time.After(opts.Interval):
			}
		}
		res.Requests++
		for _, port := range ports {
			rtt, err := connect(ctx, opts.Dial, addr, port, opts.Wait)
			if err == nil {
				res.Replies = append(res.Replies, Reply{Seq: seq, RTT: ms(rtt)})
				res.Port, ports, sent = port, []uint16{port}, sent+1
				break
			}
			if ctx.Err() != nil {
				return nil, fmt.Errorf("ping: %w", ctx.Err())
			}
			if leftHost(err) {
				sent++
			} else {
				lastErr = err
			}
		}
	}
	if sent == 0 {
		return nil, fmt.Errorf("%w: %w", ErrNotSent, firstErr(lastErr))
	}
	return res, nil
}

func connect(ctx context.Context, dial netx.DialFunc, addr netip.Addr, port uint16, wait time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	start := time.Now()
	conn, err := dial(ctx, "tcp", netip.AddrPortFrom(addr, port).String())
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w: %w", err, ctx.Err())
		}
		return 0, err
	}
	rtt := time.Since(start)
	conn.Close()
	return rtt, nil
}

// leftHost reports whether a failed connect still sent its SYN: the
// answer was a refusal, a reset, an ICMP error, or nothing in time.
func leftHost(err error) bool {
	var netErr net.Error
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, context.DeadlineExceeded) ||
		(errors.As(err, &netErr) && netErr.Timeout())
}

// summarise fills loss and the round-trip statistics from the replies.
func summarise(res *Result) {
	if res.Replies == nil {
		res.Replies = []Reply{}
	}
	res.Loss = round(float64(res.Requests-len(res.Replies)) / float64(res.Requests) * 100)
	if len(res.Replies) == 0 {
		return
	}
	rtts := make([]float64, len(res.Replies))
	var sum float64
	for i, r := range res.Replies {
		rtts[i] = r.RTT
		sum += r.RTT
	}
	mean := sum / float64(len(rtts))
	var sq float64
	for _, v := range rtts {
		sq += (v - mean) * (v - mean)
	}
	res.Min, res.Max = round(slices.Min(rtts)), round(slices.Max(rtts))
	res.Avg = round(mean)
	res.Latency = res.Avg
	res.StdDev = round(math.Sqrt(sq / float64(len(rtts))))
}

// ms converts to milliseconds with microsecond precision.
func ms(d time.Duration) float64 { return round(float64(d) / float64(time.Millisecond)) }

// round keeps three decimals.
func round(v float64) float64 { return math.Round(v*1000) / 1000 }
