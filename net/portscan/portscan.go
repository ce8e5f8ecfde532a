// Package portscan finds the open TCP ports of one address with connect
// scans, and optionally tells what answers on them: a banner read, a TLS
// handshake, an HTTP HEAD.
//
// The scanner never resolves names or chooses addresses: the caller pins
// the address and supplies the dial function (sitediag passes its SSRF
// guard's), so every connection goes where the caller allowed.
//
// A closed or filtered port is a finding, not an error: only the open
// ones are reported. Scan fails only when the scan itself cannot run.
package portscan

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"syscall"
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
}

// DialFunc connects to one of addrs on port; sitediag passes
// guard.DialAddrs, which refuses addresses its policy denies.
type DialFunc func(ctx context.Context, network string, addrs []netip.Addr, port uint16) (net.Conn, error)

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
// changes the ports found.
func Scan(ctx context.Context, dial netx.DialFunc, addr netip.Addr, ports []uint16, opts Options) (*Result, error) {
	if len(ports) == 0 {
		return nil, ErrNoPorts
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	open, err := connectScan(ctx, dial, addr, ports, newWindow(opts.Concurrency, timeout))
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

// attempt is one connect to a port and what came of it.
type attempt struct {
	port     uint16
	retry    bool
	launched time.Time
	// answered is true when the port accepted or refused; open when it
	// accepted.
	answered, open bool
	took           time.Duration
	err            error
}

// connectScan connects to every port, as many at once as w allows, and
// returns the open ones. Every attempt reports on a channel with room for
// all of them, so none blocks when the scan stops early.
func connectScan(ctx context.Context, dial netx.DialFunc, addr netip.Addr, ports []uint16, w *window) ([]uint16, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan attempt, 2*len(ports))
	queue := slices.Clone(ports)
	retries := []uint16{}
	var open []uint16
	inFlight := 0
	launch := func(port uint16, retry bool) {
		inFlight++
		timeout := w.timeout(retry)
		launched := time.Now()
		go func() {
			answered, isOpen, err := probe(ctx, dial, addr, port, timeout)
			done <- attempt{port: port, retry: retry, launched: launched, answered: answered, open: isOpen,
				took: time.Since(launched), err: err}
		}()
	}
	for len(queue) > 0 || len(retries) > 0 || inFlight > 0 {
		for inFlight < w.size() && (len(queue) > 0 || len(retries) > 0) {
			if len(queue) > 0 {
				launch(queue[0], false)
				queue = queue[1:]
			} else {
				launch(retries[0], true)
				retries = retries[1:]
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("portscan: scan did not finish: %w", ctx.Err())
		case a := <-done:
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
				w.silent(a.launched, time.Now())
				retries = append(retries, a.port)
			}
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

// probe connects to port within timeout. answered is true when the port
// accepted (open) or refused, reset or was unreachable; false when it
// stayed silent. Anything else stops the scan.
func probe(ctx context.Context, dial netx.DialFunc, addr netip.Addr, port uint16, timeout time.Duration) (answered, open bool, err error) {
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := dial(pctx, "tcp", netip.AddrPortFrom(addr, port).String())
	switch {
	case err == nil:
		conn.Close()
		return true, true, nil
	case ctx.Err() != nil:
		return false, false, nil // the scan's end, reported by the scan
	case pctx.Err() != nil || timedOut(err):
		return false, false, nil
	case portAnswer(err):
		return true, false, nil
	}
	return false, false, fmt.Errorf("portscan: port %d: %w", port, err)
}

// timedOut reports whether err is a connect that got no answer in time.
func timedOut(err error) bool {
	var netErr net.Error
	return errors.Is(err, syscall.ETIMEDOUT) || (errors.As(err, &netErr) && netErr.Timeout())
}

// portAnswer reports whether err says something about the port rather
// than about the scan: refused, reset, filtered (timed out or
// administratively prohibited).
func portAnswer(err error) bool {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ETIMEDOUT),
		errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return true
	}
	return timedOut(err)
}
