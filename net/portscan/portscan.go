// Package portscan finds the open TCP ports of one address with connect
// scans, and optionally tells what answers on them: a banner read, a TLS
// handshake, an HTTP HEAD.
//
// The scanner never resolves names or chooses addresses: the caller pins
// the address and supplies the dial function and the check of the
// scanner's own sockets (sitediag passes its SSRF guard's), so every
// connection goes where the caller allowed.
//
// A closed or filtered port is a finding, not an error: only the open
// ones are reported. Scan fails only when the scan itself cannot run.
package portscan

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/sitediag/sitediag/net/netx"
)

// Defaults of Options.
const (
	// DefaultConcurrency caps the connects in flight; the window under
	// the cap adapts to the target (see Scan).
	DefaultConcurrency = 1000
	// DefaultTimeout bounds one connect before the scan has measured the
	// target's round trip, and every retry.
	DefaultTimeout = 1500 * time.Millisecond
)

// Options tune a scan. The zero value is the default.
type Options struct {
	// Concurrency caps how many connects are in flight at once. If zero,
	// DefaultConcurrency.
	Concurrency int
	// Timeout bounds one connection attempt until the round trip is
	// measured, and every retry; a port silent on its retry counts as
	// filtered. If zero, DefaultTimeout.
	Timeout time.Duration
	// DetectServices, when set, probes each open port for what answers.
	DetectServices bool
	// ServiceTimeout bounds the detection of one port (banner, TLS and
	// HTTP together). If zero, DefaultServiceTimeout.
	ServiceTimeout time.Duration
	// Names gives a detected port its conventional name when the wire
	// does not tell. If nil, DefaultRanking.
	Names *Ranking
	// Control, when set, lets the scan connect on sockets of its own
	// rather than through dial: on Linux, non-blocking connects, a batch
	// at a time shared among a few goroutines, the answers watched with
	// epoll, which costs a fraction of a dial per port. It is called on
	// every such socket with the literal address before each connect,
	// from several goroutines at once, and its error stops the scan as a
	// refused dial does; sitediag passes its SSRF guard's. If nil, or off
	// Linux, every connect goes through dial. Service detection always
	// uses dial.
	Control netx.ControlFunc
}

// Result is what a scan found.
type Result struct {
	// Open are the open ports, ascending.
	Open []uint16
	// Services describe the open ports, ascending by port, when
	// DetectServices was set; nil otherwise.
	Services []Service
}

// ErrNoPorts means Scan was given no port.
var ErrNoPorts = errors.New("portscan: no ports to scan")

// Scan connects to each of ports on addr through dial and reports the
// open ones. The error is ErrNoPorts, ctx's error when the scan could not
// finish (wrapped), or a dial failure that is not about the port (the
// address is refused, no route, no local resources), also wrapped.
//
// Like nmap's connect scan, it paces itself by what the target answers
// (see window): the connects in flight start at a window that grows with
// every answer, up to Concurrency, and halves when a connect goes
// unanswered; once answers have measured the round trip, a connect waits
// that long plus four deviations (at least 100 ms, at most Timeout)
// rather than Timeout; and a port that stayed silent is tried once more
// with the whole Timeout before it counts as filtered, so pacing never
// changes the ports found. With opts.Control, the connects are the
// scanner's own sockets (see Options.Control); the pacing is the same.
func Scan(ctx context.Context, dial netx.DialFunc, addr netip.Addr, ports []uint16, opts Options) (*Result, error) {
	if len(ports) == 0 {
		return nil, ErrNoPorts
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	open, err := connectScan(ctx, newConnector(ctx, dial, opts.Control, addr, len(ports)), ports, newWindow(opts.Concurrency, timeout))
	if err != nil {
		return nil, err
	}
	slices.Sort(open)
	res := &Result{Open: open}
	if opts.DetectServices {
		names := opts.Names
		if names == nil {
			names = DefaultRanking()
		}
		res.Services = detectAll(ctx, dial, addr, open, concurrencyOf(opts.Concurrency), opts.ServiceTimeout, names)
	}
	return res, nil
}

// connectScan connects to every port, as many at once as w allows,
// through c, and returns the open ones.
func connectScan(ctx context.Context, c connector, ports []uint16, w *window) ([]uint16, error) {
	defer c.close()
	queue := slices.Clone(ports)
	retries := []uint16{}
	var open []uint16
	inFlight := 0
	for len(queue) > 0 || len(retries) > 0 || inFlight > 0 {
		for inFlight < w.size() && (len(queue) > 0 || len(retries) > 0) {
			port, retry := uint16(0), len(queue) == 0
			if retry {
				port, retries = retries[0], retries[1:]
			} else {
				port, queue = queue[0], queue[1:]
			}
			if err := c.start(port, retry, w.timeout(retry)); err != nil {
				return nil, err
			}
			inFlight++
		}
		a, err := c.next(ctx)
		if err != nil {
			return nil, fmt.Errorf("portscan: scan did not finish: %w", err)
		}
		inFlight--
		switch {
		case a.err != nil:
			return nil, a.err
		case a.answered:
			w.answered(a.took)
			if a.open {
				open = append(open, a.port)
			}
		case !a.retry:
			w.silent(a.launched, a.launched.Add(a.took))
			retries = append(retries, a.port)
		}
	}
	return open, nil
}

// concurrencyOf is Options.Concurrency or its default.
func concurrencyOf(n int) int {
	if n <= 0 {
		return DefaultConcurrency
	}
	return n
}
