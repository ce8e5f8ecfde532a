package portscan

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"

	"github.com/sitediag/sitediag/net/netx"
)

// connector carries out a scan's connects: start begins one, next
// returns one that has finished. The goroutine that runs the scan is its
// only user.
type connector interface {
	// start begins a connect to port that gets no answer after timeout;
	// retry is the scan's note, handed back in the attempt. An error
	// stops the scan.
	start(port uint16, retry bool, timeout time.Duration) error
	// next waits for a connect started earlier to finish; the error is
	// ctx's when it ends first.
	next(ctx context.Context) (attempt, error)
	// close abandons the connects still in flight and frees what the
	// connector holds.
	close()
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
	// err stops the scan: the connect failed for a reason that is not
	// about the port.
	err error
}

// newConnector returns the socket connector when control is set and the
// platform has one, else the dial connector. A scan of n ports makes at
// most 2n attempts.
func newConnector(ctx context.Context, dial netx.DialFunc, control netx.ControlFunc, addr netip.Addr, n int) connector {
	if control != nil {
		if c, err := newSocketConnector(control, addr); err == nil {
			return c
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	return &dialConnector{ctx: ctx, cancel: cancel, dial: dial, addr: addr, done: make(chan attempt, 2*n)}
}

// dialConnector connects through a DialFunc, one goroutine per connect.
type dialConnector struct {
	ctx    context.Context
	cancel context.CancelFunc
	dial   netx.DialFunc
	addr   netip.Addr
	// done has room for every attempt of the scan, so that none blocks
	// when the scan stops early.
	done chan attempt
}

func (c *dialConnector) start(port uint16, retry bool, timeout time.Duration) error {
	launched := time.Now()
	go func() {
		a := attempt{port: port, retry: retry, launched: launched}
		a.answered, a.open, a.err = c.probe(port, timeout)
		a.took = time.Since(launched)
		c.done <- a
	}()
	return nil
}

func (c *dialConnector) next(ctx context.Context) (attempt, error) {
	select {
	case <-ctx.Done():
		return attempt{}, ctx.Err()
	case a := <-c.done:
		return a, nil
	}
}

// close cancels the dials in flight; their goroutines end on their own.
func (c *dialConnector) close() { c.cancel() }

// probe connects to port within timeout. answered is true when the port
// accepted (open) or refused, reset or was unreachable; false when it
// stayed silent. Anything else stops the scan.
func (c *dialConnector) probe(port uint16, timeout time.Duration) (answered, open bool, err error) {
	pctx, cancel := context.WithTimeout(c.ctx, timeout)
	defer cancel()
	conn, err := c.dial(pctx, "tcp", netip.AddrPortFrom(c.addr, port).String())
	switch {
	case err == nil:
		conn.Close()
		return true, true, nil
	case c.ctx.Err() != nil:
		return false, false, nil // the scan's end, reported by the scan
	case pctx.Err() != nil:
		return false, false, nil
	}
	return outcome(port, err)
}

// outcome classifies a connect to port that failed with err: answered
// when the port refused, reset, was unreachable or was administratively
// prohibited, silent when it timed out, and an error (which stops the
// scan) when err is not about the port.
func outcome(port uint16, err error) (answered, open bool, _ error) {
	errno, ok := err.(syscall.Errno) // the socket connector's, without errors.As's reflection
	if !ok {
		errors.As(err, &errno)
	}
	switch errno {
	case syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EHOSTUNREACH, syscall.EACCES, syscall.EPERM:
		return true, false, nil
	}
	var netErr net.Error
	if errno == syscall.ETIMEDOUT || (errors.As(err, &netErr) && netErr.Timeout()) {
		return false, false, nil
	}
	return false, false, fmt.Errorf("portscan: port %d: %w", port, err)
}
