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
	"sync"
	"syscall"
	"time"

	"github.com/sitediag/sitediag/net/netx"
	"golang.org/x/sync/errgroup"
)

// Defaults of Options.
const (
	DefaultConcurrency = 200
	DefaultTimeout     = 1500 * time.Millisecond
)

// Options tune a scan. The zero value is the default.
type Options struct {
	// Concurrency is how many ports are probed at once. If zero,
	// DefaultConcurrency.
	Concurrency int
	// Timeout bounds one connection attempt; a port that neither accepts
	// nor refuses within it counts as filtered. If zero, DefaultTimeout.
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
func Scan(ctx context.Context, dial netx.DialFunc, addr netip.Addr, ports []uint16, opts Options) (*Result, error) {
	if len(ports) == 0 {
		return nil, ErrNoPorts
	}
	concurrency := opts.Concurrency
	if concurrency <= 0 {
		concurrency = DefaultConcurrency
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	var (
		mu   sync.Mutex
		open []uint16
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(concurrency)
	for _, port := range ports {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			ok, err := probe(gctx, dial, addr, port, timeout)
			if err != nil {
				return err
			}
			if ok {
				mu.Lock()
				open = append(open, port)
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("portscan: scan did not finish: %w", err)
	}
	slices.Sort(open)
	res := &Result{Open: open}
	if opts.DetectServices {
		names := opts.Names
		if names == nil {
			names = DefaultRanking()
		}
		res.Services = detectAll(ctx, dial, addr, open, concurrency, opts.ServiceTimeout, names)
	}
	return res, nil
}

// probe reports whether port accepts a connection. Refused, reset,
// unreachable and timed out are answers about the port; anything else
// stops the scan.
func probe(ctx context.Context, dial netx.DialFunc, addr netip.Addr, port uint16, timeout time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := dial(ctx, "tcp", netip.AddrPortFrom(addr, port).String())
	if err == nil {
		conn.Close()
		return true, nil
	}
	if portAnswer(err) || ctx.Err() != nil {
		return false, nil
	}
	return false, fmt.Errorf("portscan: port %d: %w", port, err)
}

// portAnswer reports whether err says something about the port rather
// than about the scan: refused, reset, filtered (timed out or
// administratively prohibited).
func portAnswer(err error) bool {
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ETIMEDOUT),
		errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return true
	case errors.As(err, &netErr) && netErr.Timeout():
		return true
	}
	return false
}
