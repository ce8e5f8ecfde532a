package portscan

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/sitediag/sitediag/net/netx"
	"golang.org/x/sys/unix"
)

// Batching of socketConnector: the connects started are issued
// batchSize at a time, the batch shared among up to maxLanes goroutines
// (no more than GOMAXPROCS), each with sockets of its own; then the
// answers already in are collected. On loopback a connect is answered
// before connect(2) returns, so the scan holds a few sockets rather than
// a window's worth (growing the descriptor table of a process with
// threads waits for an RCU grace period each time it doubles), and its
// cost, nearly all in the kernel, is spread over the cores.
const (
	batchSize = 64
	maxLanes  = 4
)

// socketConnector connects on non-blocking sockets of its own and
// watches those still connecting with an epoll instance, itself waited on
// through the runtime's poller: the whole window is in flight without a
// goroutine per connect.
type socketConnector struct {
	// ep is the epoll instance, as a pollable file whose read deadline
	// bounds a wait.
	ep      *os.File
	epfd    int
	rawEp   syscall.RawConn
	stopCtx func() bool
	addr    netip.Addr
	lanes   []*lane
	// batch are the connects started and not yet issued.
	batch []pendingConnect
	// pending are the sockets connecting, by descriptor; deadlines orders
	// them by when they count as silent.
	pending   map[int32]*pendingConnect
	deadlines deadlineHeap
	// finished are attempts over and not yet handed to next.
	finished []attempt
	events   []unix.EpollEvent
}

// pendingConnect is a connect started, then a socket connecting.
type pendingConnect struct {
	attempt
	timeout  time.Duration
	fd       int
	deadline time.Time
}

// lane issues connects on a goroutine of its own during a batch.
type lane struct {
	control netx.ControlFunc
	addr    netip.Addr
	network string
	family  int
	// sa is the target's address; connect sets its port.
	sa   unix.Sockaddr
	epfd int
	// spare are sockets a refusal left unconnected, ready for reuse.
	spare []int
	// What the batch left: attempts over, sockets connecting, and the
	// error that stopped the lane.
	finished []attempt
	pending  []*pendingConnect
	err      error
}

func newSocketConnector(control netx.ControlFunc, addr netip.Addr) (*socketConnector, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	if err := unix.SetNonblock(epfd, true); err != nil {
		unix.Close(epfd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	// A non-blocking descriptor makes a file the runtime's poller watches.
	c := &socketConnector{ep: os.NewFile(uintptr(epfd), "portscan-epoll"), epfd: epfd,
		pending: map[int32]*pendingConnect{}, events: make([]unix.EpollEvent, 128)}
	if c.rawEp, err = c.ep.SyscallConn(); err != nil {
		c.ep.Close()
		return nil, err
	}
	addr = addr.WithZone("").Unmap()
	c.addr = addr
	for range min(runtime.GOMAXPROCS(0), maxLanes) {
		l := &lane{control: control, addr: addr, epfd: epfd}
		if addr.Is4() {
			l.network, l.family, l.sa = "tcp4", unix.AF_INET, &unix.SockaddrInet4{Addr: addr.As4()}
		} else {
			l.network, l.family, l.sa = "tcp6", unix.AF_INET6, &unix.SockaddrInet6{Addr: addr.As16()}
		}
		c.lanes = append(c.lanes, l)
	}
	return c, nil
}

func (c *socketConnector) start(port uint16, retry bool, timeout time.Duration) error {
	c.batch = append(c.batch, pendingConnect{attempt: attempt{port: port, retry: retry}, timeout: timeout})
	if len(c.batch) < batchSize {
		return nil
	}
	return c.issue()
}

// issue makes the connects of the batch, shared among the lanes, then
// collects the answers already in.
func (c *socketConnector) issue() error {
	n := len(c.batch)
	share := (n + len(c.lanes) - 1) / len(c.lanes)
	var wg sync.WaitGroup
	for i, l := range c.lanes[1:] {
		if part := c.batch[min((i+1)*share, n):min((i+2)*share, n)]; len(part) > 0 {
			wg.Go(func() { l.connectAll(part) })
		}
	}
	c.lanes[0].connectAll(c.batch[:min(share, n)])
	wg.Wait()
	c.batch = c.batch[:0]
	var err error
	for _, l := range c.lanes {
		c.finished = append(c.finished, l.finished...)
		for _, p := range l.pending {
			c.pending[int32(p.fd)] = p
			heap.Push(&c.deadlines, p)
		}
		if err == nil {
			err = l.err
		}
		l.finished, l.pending, l.err = l.finished[:0], l.pending[:0], nil
	}
	if err != nil {
		return err
	}
	return c.harvest()
}

// connectAll connects each of part in turn, until one fails.
func (l *lane) connectAll(part []pendingConnect) {
	for i := range part {
		if l.err = l.connect(&part[i]); l.err != nil {
			return
		}
	}
}

// connect makes the connect p: the answer when it is in at once, else a
// socket connecting, watched by epoll.
func (l *lane) connect(p *pendingConnect) error {
	fd, err := l.socket()
	if err != nil {
		return fmt.Errorf("portscan: port %d: %w", p.port, err)
	}
	if err := l.control(l.network, netip.AddrPortFrom(l.addr, p.port).String(), socketConn(fd)); err != nil {
		unix.Close(fd)
		return fmt.Errorf("portscan: port %d: %w", p.port, err)
	}
	switch sa := l.sa.(type) {
	case *unix.SockaddrInet4:
		sa.Port = int(p.port)
	case *unix.SockaddrInet6:
		sa.Port = int(p.port)
	}
	p.fd, p.launched = fd, time.Now()
	err = unix.Connect(fd, l.sa)
	if err == unix.EINPROGRESS {
		// On loopback the answer is in before connect returns: asking
		// again takes it (EALREADY while there is none), which spares
		// the epoll registration and the wake-up it causes.
		err = unix.Connect(fd, l.sa)
	}
	switch err {
	case unix.EALREADY:
		ev := unix.EpollEvent{Events: unix.EPOLLOUT, Fd: int32(fd)}
		if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			unix.Close(fd)
			return fmt.Errorf("portscan: port %d: %w", p.port, os.NewSyscallError("epoll_ctl", err))
		}
		connecting := *p
		connecting.deadline = p.launched.Add(p.timeout)
		l.pending = append(l.pending, &connecting)
		return nil
	case unix.EISCONN, nil:
		err = connected(fd, netip.AddrPortFrom(l.addr, p.port))
	case unix.ECONNREFUSED:
		// The socket is kept for the next connect (dissolved first),
		// which spares a socket and a close per closed port.
		if disconnect(fd) == nil {
			l.spare = append(l.spare, fd)
			l.finished = append(l.finished, p.over(err))
			return nil
		}
	}
	unix.Close(fd)
	l.finished = append(l.finished, p.over(err))
	return nil
}

// connected checks a socket that connected to target: nil, or
// ECONNREFUSED when it connected to itself (a local port nothing listens
// on, in the ephemeral range, can be chosen as the socket's own source
// port; Go's dialer dials such a port again, and is refused).
func connected(fd int, target netip.AddrPort) error {
	var local netip.AddrPort
	switch sa, _ := unix.Getsockname(fd); sa := sa.(type) {
	case *unix.SockaddrInet4:
		local = netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), uint16(sa.Port))
	case *unix.SockaddrInet6:
		local = netip.AddrPortFrom(netip.AddrFrom16(sa.Addr), uint16(sa.Port))
	}
	if local == target {
		return unix.ECONNREFUSED
	}
	return nil
}

// socket returns a socket to connect: a spare one, or a new one.
func (l *lane) socket() (int, error) {
	if n := len(l.spare); n > 0 {
		fd := l.spare[n-1]
		l.spare = l.spare[:n-1]
		return fd, nil
	}
	fd, err := unix.Socket(l.family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	return fd, os.NewSyscallError("socket", err)
}

// over is the attempt p once its connect ended with err (nil when it
// connected).
func (p *pendingConnect) over(err error) attempt {
	a := p.attempt
	a.took = time.Since(a.launched)
	if err == nil {
		a.answered, a.open = true, true
	} else {
		a.answered, a.open, a.err = outcome(a.port, err)
	}
	return a
}

// disconnect returns a socket whose connect failed to its unconnected
// state: connect(2) to an AF_UNSPEC address, which x/sys/unix has no
// Sockaddr for. A refused socket connects again without it on Linux; the
// dissolve (tcp_disconnect) is the documented way, and resets whatever
// the attempt left, for 5 % of a scan's CPU.
func disconnect(fd int) error {
	sa := unix.RawSockaddr{Family: unix.AF_UNSPEC}
	if _, _, errno := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(&sa)), unsafe.Sizeof(sa)); errno != 0 {
		return errno
	}
	return nil
}

// finish closes the socket of p, which was connecting, and records how
// its connect ended.
func (c *socketConnector) finish(p *pendingConnect, err error) {
	delete(c.pending, int32(p.fd))
	unix.Close(p.fd)
	c.finished = append(c.finished, p.over(err))
}

// harvest finishes the sockets whose connects are over, without waiting.
func (c *socketConnector) harvest() error {
	for {
		n, err := unix.EpollWait(c.epfd, c.events, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return os.NewSyscallError("epoll_wait", err)
		}
		for _, ev := range c.events[:n] {
			p := c.pending[ev.Fd]
			err := pendingError(p.fd)
			if err == nil {
				err = connected(p.fd, netip.AddrPortFrom(c.addr, p.port))
			}
			c.finish(p, err)
		}
		if n < len(c.events) {
			return nil
		}
	}
}

// expire finishes, as silent, the sockets whose deadlines have passed.
func (c *socketConnector) expire(now time.Time) {
	for len(c.deadlines) > 0 && !c.deadlines[0].deadline.After(now) {
		p := heap.Pop(&c.deadlines).(*pendingConnect)
		if c.pending[int32(p.fd)] == p { // else finished already; the descriptor may be reused
			c.finish(p, unix.ETIMEDOUT)
		}
	}
}

func (c *socketConnector) next(ctx context.Context) (attempt, error) {
	if len(c.finished) == 0 && len(c.batch) > 0 {
		if err := c.issue(); err != nil {
			return attempt{}, err
		}
	}
	if c.stopCtx == nil {
		// A read deadline in the past wakes a wait when ctx ends.
		c.stopCtx = context.AfterFunc(ctx, func() { c.ep.SetReadDeadline(time.Unix(1, 0)) })
	}
	for len(c.finished) == 0 {
		for len(c.deadlines) > 0 && c.pending[int32(c.deadlines[0].fd)] != c.deadlines[0] {
			heap.Pop(&c.deadlines) // finished already
		}
		if len(c.deadlines) == 0 {
			return attempt{}, errors.New("portscan: no connect in flight")
		}
		c.ep.SetReadDeadline(c.deadlines[0].deadline)
		if err := ctx.Err(); err != nil {
			return attempt{}, err
		}
		var harvested error
		err := c.rawEp.Read(func(uintptr) bool {
			harvested = c.harvest()
			return len(c.finished) > 0 || harvested != nil
		})
		switch {
		case harvested != nil:
			return attempt{}, harvested
		case errors.Is(err, os.ErrDeadlineExceeded):
			if ctx.Err() != nil {
				return attempt{}, ctx.Err()
			}
			c.expire(time.Now())
		case err != nil:
			return attempt{}, err
		}
	}
	a := c.finished[0]
	c.finished = c.finished[1:]
	return a, nil
}

// close closes every socket still connecting, the spare ones and the
// epoll instance.
func (c *socketConnector) close() {
	if c.stopCtx != nil {
		c.stopCtx()
	}
	for _, p := range c.pending {
		unix.Close(p.fd)
	}
	for _, l := range c.lanes {
		for _, fd := range l.spare {
			unix.Close(fd)
		}
	}
	c.pending, c.lanes = nil, nil
	c.ep.Close()
}

// pendingError takes the pending error of a socket (SO_ERROR): nil when
// there is none, which once the socket is writable means it connected.
func pendingError(fd int) error {
	soErr, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	switch {
	case err != nil:
		return os.NewSyscallError("getsockopt", err)
	case soErr != 0:
		return syscall.Errno(soErr)
	}
	return nil
}

// socketConn is the syscall.RawConn a ControlFunc is handed: the socket
// before it connects, for options; there is nothing to read or write yet.
type socketConn int

func (s socketConn) Control(f func(fd uintptr)) error { f(uintptr(s)); return nil }
func (socketConn) Read(func(fd uintptr) bool) error   { return errors.ErrUnsupported }
func (socketConn) Write(func(fd uintptr) bool) error  { return errors.ErrUnsupported }

// deadlineHeap orders connects by deadline, earliest first.
type deadlineHeap []*pendingConnect

func (h deadlineHeap) Len() int           { return len(h) }
func (h deadlineHeap) Less(i, j int) bool { return h[i].deadline.Before(h[j].deadline) }
func (h deadlineHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *deadlineHeap) Push(x any)        { *h = append(*h, x.(*pendingConnect)) }
func (h *deadlineHeap) Pop() any {
	old := *h
	p := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return p
}
