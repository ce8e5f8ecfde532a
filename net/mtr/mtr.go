// Package mtr traces the network path to one address the way mtr does:
// ICMP echo requests with increasing TTL (IPv4) or hop limit (IPv6), all
// hops probed in each round, replies matched to probes by the echo id and
// sequence that routers quote back in their time-exceeded messages. Per
// hop it reports loss and round-trip statistics, with names and origin AS
// numbers from lookups the caller supplies.
//
// It sends through raw ICMP sockets (golang.org/x/net/icmp), which need
// root or CAP_NET_RAW: unprivileged ICMP sockets do not hand back the
// routers' errors. The caller pins the destination and checks it against
// its policy first; only the destination is ever addressed.
package mtr

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/sitediag/sitediag/internal/defaults"
	"github.com/sitediag/sitediag/net/netx"
	"golang.org/x/net/icmp"
	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
	"golang.org/x/sync/errgroup"
)

// Defaults of Options.
const (
	DefaultCount         = 5
	DefaultMaxHops       = 30
	DefaultInterval      = time.Second
	DefaultTimeout       = 2 * time.Second
	DefaultLookupTimeout = 3 * time.Second
)

// MaxHops is the largest MaxHops accepted.
const MaxHops = 64

// Unknown marks a hop that never answered, and an unknown AS.
const (
	UnknownHost = "???"
	UnknownASN  = "AS???"
)

// lookupConcurrency bounds the name and AS lookups in flight.
const lookupConcurrency = 8

// Options tune a trace. The zero value is the default.
type Options struct {
	// Count is the number of rounds; each round probes every hop once.
	// If zero, DefaultCount.
	Count int
	// MaxHops is the largest TTL probed, at most MaxHops. If zero,
	// DefaultMaxHops.
	MaxHops int
	// Interval separates the starts of two rounds. If zero,
	// DefaultInterval.
	Interval time.Duration
	// Timeout is how long a probe may wait for its answer. If zero,
	// DefaultTimeout.
	Timeout time.Duration
	// Name returns the host name of a hop's address (a PTR lookup), or
	// "" when it has none. If nil, hosts are shown as addresses.
	Name func(ctx context.Context, addr netip.Addr) string
	// ASN returns the origin AS of an address, such as "AS64500", or ""
	// when unknown. If nil, every hop's AS is UnknownASN.
	ASN func(ctx context.Context, addr netip.Addr) string
	// LookupTimeout bounds the Name and ASN lookups of all hops
	// together; a hop not named in time shows its address. If zero,
	// DefaultLookupTimeout.
	LookupTimeout time.Duration
	// Allow is the policy: a trace to an address it refuses fails with
	// netx.ErrNotAllowed before any probe is sent. If nil, every
	// address is allowed.
	Allow netx.AllowFunc
}

// Hop is one line of the report. Times are milliseconds.
type Hop struct {
	// Hop is the TTL, from 1.
	Hop int `json:"hop"`
	// Host is the responder's name, its address when it has none, or
	// UnknownHost when nothing answered at this hop.
	Host string `json:"host"`
	// IP is the responder's address (the one that answered most
	// often); empty when nothing answered.
	IP string `json:"ip"`
	// ASN is the responder's origin AS ("AS64500"), or UnknownASN.
	ASN string `json:"asn"`
	// Loss is the share of probes without an answer, in percent.
	Loss float64 `json:"loss"`
	// Sent is the number of probes sent with this TTL.
	Sent  int     `json:"sent"`
	Last  float64 `json:"last"`
	Avg   float64 `json:"avg"`
	Best  float64 `json:"best"`
	Worst float64 `json:"worst"`
	// StdDev is the sample standard deviation of the round trips, as
	// mtr computes it.
	StdDev float64 `json:"stdDev"`
}

var (
	// ErrNoRawSocket means the process may not open raw ICMP sockets.
	ErrNoRawSocket = errors.New("mtr: raw ICMP sockets are not permitted (needs root or CAP_NET_RAW)")
	// ErrNotSent means no probe could be sent; the cause is wrapped too.
	ErrNotSent = errors.New("mtr: no probe could be sent")
)

// Trace probes the path to dst and returns one Hop per TTL, up to the
// destination when it answered, else up to the first silent hop after
// the last that answered. The error wraps ErrNoRawSocket, ErrNotSent,
// netx.ErrNotAllowed or ctx's error.
func Trace(ctx context.Context, dst netip.Addr, opts Options) ([]Hop, error) {
	opts = withDefaults(opts)
	dst = dst.WithZone("").Unmap()
	if opts.Allow != nil && !opts.Allow(dst) {
		return nil, fmt.Errorf("mtr: %v: %w", dst, netx.ErrNotAllowed)
	}
	t, err := newTracer(dst, opts)
	if err != nil {
		return nil, err
	}
	defer t.conn.Close()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { t.receive(done) })
	err = t.probe(ctx)
	close(done)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	hops := t.report()
	name(ctx, hops, opts)
	return hops, nil
}

func withDefaults(opts Options) Options {
	opts.Count = defaults.Positive(opts.Count, DefaultCount)
	opts.MaxHops = min(defaults.Positive(opts.MaxHops, DefaultMaxHops), MaxHops)
	opts.Interval = defaults.Positive(opts.Interval, DefaultInterval)
	opts.Timeout = defaults.Positive(opts.Timeout, DefaultTimeout)
	opts.LookupTimeout = defaults.Positive(opts.LookupTimeout, DefaultLookupTimeout)
	return opts
}

// probeState is one probe in flight or done.
type probeState struct {
	ttl      int
	sent     time.Time
	rtt      time.Duration
	from     netip.Addr
	answered bool
}

type tracer struct {
	conn *icmp.PacketConn
	dst  netip.Addr
	id   int
	opts Options

	mu      sync.Mutex
	seq     uint16
	probes  map[uint16]*probeState
	order   []uint16 // seqs in send order
	destTTL int      // smallest TTL the destination answered at; 0 until then
}

func newTracer(dst netip.Addr, opts Options) (*tracer, error) {
	network, laddr := "ip4:icmp", "0.0.0.0"
	if dst.Is6() {
		network, laddr = "ip6:ipv6-icmp", "::"
	}
	conn, err := icmp.ListenPacket(network, laddr)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoRawSocket, err)
	}
	return &tracer{
		conn:   conn,
		dst:    dst,
		id:     rand.IntN(0xffff) + 1,
		seq:    uint16(rand.IntN(0xffff)),
		opts:   opts,
		probes: make(map[uint16]*probeState),
	}, nil
}

// probe sends the rounds, then waits for the last answers.
func (t *tracer) probe(ctx context.Context) error {
	var lastErr error
	sentAny := false
	for round := range t.opts.Count {
		if round > 0 {
			if err := sleep(ctx, t.opts.Interval); err != nil {
				return fmt.Errorf("mtr: %w", err)
			}
		}
		for ttl := 1; ttl <= t.limit(); ttl++ {
			if err := t.send(ttl); err != nil {
				lastErr = err
				continue
			}
			sentAny = true
		}
	}
	if !sentAny {
		return fmt.Errorf("%w: %w", ErrNotSent, lastErr)
	}
	deadline := time.Now().Add(t.opts.Timeout)
	for time.Now().Before(deadline) && t.waiting() {
		if err := sleep(ctx, 10*time.Millisecond); err != nil {
			return fmt.Errorf("mtr: %w", err)
		}
	}
	return ctx.Err()
}

// limit is the largest TTL worth probing: the destination's, once known.
func (t *tracer) limit() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.destTTL > 0 {
		return t.destTTL
	}
	return t.opts.MaxHops
}

// waiting reports whether a probe of the last round may still be
// answered: one at or below the destination's TTL has not been.
func (t *tracer) waiting() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	limit := t.opts.MaxHops
	if t.destTTL > 0 {
		limit = t.destTTL
	}
	cutoff := time.Now().Add(-t.opts.Timeout)
	for _, p := range t.probes {
		if !p.answered && p.ttl <= limit && p.sent.After(cutoff) {
			return true
		}
	}
	return false
}

// send sends one echo request with the given TTL. A probe whose send
// failed still counts as sent, and lost.
func (t *tracer) send(ttl int) error {
	var err error
	if t.dst.Is6() {
		err = t.conn.IPv6PacketConn().SetHopLimit(ttl)
	} else {
		err = t.conn.IPv4PacketConn().SetTTL(ttl)
	}
	if err != nil {
		return err
	}
	var typ icmp.Type = ipv4.ICMPTypeEcho
	if t.dst.Is6() {
		typ = ipv6.ICMPTypeEchoRequest
	}
	t.mu.Lock()
	t.seq++
	seq := t.seq
	// For ICMPv6 the kernel computes the checksum of raw sockets.
	b, err := (&icmp.Message{Type: typ, Body: &icmp.Echo{ID: t.id, Seq: int(seq), Data: []byte("sitediag-mtr")}}).Marshal(nil)
	if err != nil {
		t.mu.Unlock()
		return err
	}
	// Recorded before it leaves: on a short path the answer can come
	// back before WriteTo returns.
	t.probes[seq] = &probeState{ttl: ttl, sent: time.Now()}
	t.order = append(t.order, seq)
	t.mu.Unlock()
	_, err = t.conn.WriteTo(b, &net.IPAddr{IP: t.dst.AsSlice()})
	return err
}

// receive reads ICMP messages until done is closed.
func (t *tracer) receive(done <-chan struct{}) {
	buf := make([]byte, 1500)
	for {
		select {
		case <-done:
			return
		default:
		}
		t.conn.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		n, peer, err := t.conn.ReadFrom(buf)
		if err != nil {
			continue
		}
		at := time.Now()
		ipAddr, ok := peer.(*net.IPAddr)
		if !ok {
			continue
		}
		from, ok := netip.AddrFromSlice(ipAddr.IP)
		if !ok {
			continue
		}
		if seq, ok := t.match(buf[:n], from.Unmap()); ok {
			t.answer(seq, from.Unmap(), at)
		}
	}
}

// match returns the sequence of our probe that msg answers: an echo
// reply from the destination, or a time-exceeded or unreachable message
// quoting our echo request.
func (t *tracer) match(b []byte, from netip.Addr) (uint16, bool) {
	proto := 1 // ICMP
	if t.dst.Is6() {
		proto = 58 // ICMPv6
	} else {
		b = skipIPv4Header(b)
	}
	msg, err := icmp.ParseMessage(proto, b)
	if err != nil {
		return 0, false
	}
	switch body := msg.Body.(type) {
	case *icmp.Echo:
		if (msg.Type == ipv4.ICMPTypeEchoReply || msg.Type == ipv6.ICMPTypeEchoReply) && body.ID == t.id && from == t.dst {
			return uint16(body.Seq), true
		}
	case *icmp.TimeExceeded:
		return t.quoted(body.Data)
	case *icmp.DstUnreach:
		return t.quoted(body.Data)
	}
	return 0, false
}

// skipIPv4Header drops the IPv4 header some raw sockets hand over with
// the ICMP message. No assigned ICMP type starts with 0x4_, so a header
// can be told apart; anyone can send such a type, so its length is
// checked before it is skipped.
func skipIPv4Header(b []byte) []byte {
	if len(b) < 20 || b[0]>>4 != 4 {
		return b
	}
	if ihl := int(b[0]&0x0f) * 4; ihl >= 20 && ihl <= len(b) {
		return b[ihl:]
	}
	return b
}

// quoted reads the echo id and sequence out of the original datagram an
// ICMP error quotes, checking it was ours, to our destination.
func (t *tracer) quoted(data []byte) (uint16, bool) {
	var dst netip.Addr
	var echo []byte
	if t.dst.Is6() {
		if len(data) < 48 || data[6] != 58 {
			return 0, false
		}
		dst, _ = netip.AddrFromSlice(data[24:40])
		echo = data[40:]
		if echo[0] != byte(ipv6.ICMPTypeEchoRequest) {
			return 0, false
		}
	} else {
		if len(data) < 20 || data[0]>>4 != 4 || data[9] != 1 {
			return 0, false
		}
		ihl := int(data[0]&0x0f) * 4
		if len(data) < ihl+8 {
			return 0, false
		}
		dst, _ = netip.AddrFromSlice(data[16:20])
		echo = data[ihl:]
		if echo[0] != byte(ipv4.ICMPTypeEcho) {
			return 0, false
		}
	}
	if dst != t.dst || int(binary.BigEndian.Uint16(echo[4:6])) != t.id {
		return 0, false
	}
	return binary.BigEndian.Uint16(echo[6:8]), true
}

// answer records the answer to probe seq, if it came in time.
func (t *tracer) answer(seq uint16, from netip.Addr, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.probes[seq]
	if !ok || p.answered {
		return
	}
	rtt := at.Sub(p.sent)
	if rtt > t.opts.Timeout {
		return
	}
	p.answered, p.rtt, p.from = true, rtt, from
	if from == t.dst && (t.destTTL == 0 || p.ttl < t.destTTL) {
		t.destTTL = p.ttl
	}
}

// report turns the probes into hops.
func (t *tracer) report() []Hop {
	t.mu.Lock()
	defer t.mu.Unlock()
	last := t.destTTL
	if last == 0 {
		for _, p := range t.probes {
			if p.answered {
				last = max(last, p.ttl)
			}
		}
		last = min(last+1, t.opts.MaxHops)
	}
	type acc struct {
		sent  int
		rtts  []float64
		last  float64
		froms map[netip.Addr]int
	}
	accs := make([]acc, last+1)
	for _, seq := range t.order {
		p := t.probes[seq]
		if p.ttl > last {
			continue
		}
		a := &accs[p.ttl]
		a.sent++
		if p.answered {
			ms := round(float64(p.rtt) / float64(time.Millisecond))
			a.rtts = append(a.rtts, ms)
			a.last = ms
			if a.froms == nil {
				a.froms = map[netip.Addr]int{}
			}
			a.froms[p.from]++
		}
	}
	hops := make([]Hop, 0, last)
	for ttl := 1; ttl <= last; ttl++ {
		a := accs[ttl]
		h := Hop{Hop: ttl, Host: UnknownHost, ASN: UnknownASN, Sent: a.sent, Loss: 100}
		if a.sent > 0 {
			h.Loss = round(float64(a.sent-len(a.rtts)) / float64(a.sent) * 100)
		}
		if len(a.rtts) > 0 {
			ip := mostFrequent(a.froms)
			h.IP, h.Host, h.Last = ip.String(), ip.String(), a.last
			h.Best, h.Worst = slices.Min(a.rtts), slices.Max(a.rtts)
			h.Avg, h.StdDev = meanStdDev(a.rtts)
		}
		hops = append(hops, h)
	}
	return hops
}

// mostFrequent returns the address seen most often, the lowest on a tie.
func mostFrequent(counts map[netip.Addr]int) netip.Addr {
	var best netip.Addr
	bestN := 0
	for a, n := range counts {
		if n > bestN || (n == bestN && a.Less(best)) {
			best, bestN = a, n
		}
	}
	return best
}

// meanStdDev returns the mean and the sample standard deviation.
func meanStdDev(v []float64) (mean, sd float64) {
	var sum float64
	for _, x := range v {
		sum += x
	}
	mean = sum / float64(len(v))
	if len(v) < 2 {
		return round(mean), 0
	}
	var sq float64
	for _, x := range v {
		sq += (x - mean) * (x - mean)
	}
	return round(mean), round(math.Sqrt(sq / float64(len(v)-1)))
}

// name fills Host and ASN from the lookups, bounded by LookupTimeout.
func name(ctx context.Context, hops []Hop, opts Options) {
	if opts.Name == nil && opts.ASN == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, opts.LookupTimeout)
	defer cancel()
	var g errgroup.Group
	g.SetLimit(lookupConcurrency)
	for i := range hops {
		addr, err := netip.ParseAddr(hops[i].IP)
		if err != nil {
			continue
		}
		h := &hops[i]
		g.Go(func() error {
			if opts.Name != nil {
				if n := opts.Name(ctx, addr); n != "" && ctx.Err() == nil {
					h.Host = n
				}
			}
			if opts.ASN != nil {
				if as := opts.ASN(ctx, addr); as != "" && ctx.Err() == nil {
					h.ASN = as
				}
			}
			return nil
		})
	}
	g.Wait()
}

func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// round keeps three decimals.
func round(v float64) float64 { return math.Round(v*1000) / 1000 }
