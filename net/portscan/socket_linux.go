package portscan

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"syscall"
	"time"
	"unsafe"

	"github.com/sitediag/sitediag/net/netx"
	"golang.org/x/sys/unix"
)

// harvestEvery is how many connects socketConnector starts before it
// collects the answers already in: on loopback every connect is answered
// before connect(2) returns, so the scan holds a few dozen sockets rather
// than a window's worth (growing the descriptor table of a process with
// threads waits for an RCU grace period each time it doubles).
const harvestEvery = 16

// socketConnector connects on non-blocking sockets of its own and
// watches them with an epoll instance, itself waited on through the
// runtime's poller, so one goroutine keeps the whole window in flight.
type socketConnector struct {
	control netx.ControlFunc
	addr    netip.Addr
	network string
	// sa is the target's address; start sets its port.
	sa     unix.Sockaddr
	family int
	// ep is the epoll instance, as a pollable file whose read deadline
	// bounds a wait.
	ep      *os.File
	epfd    int
	rawEp   syscall.RawConn
	stopCtx func() bool
	// pending are the sockets connecting, by descriptor; deadlines orders
	// them by when they count as silent.
	pending   map[int32]*pendingConnect
	deadlines deadlineHeap
	// finished are attempts over and not yet handed to next.
	finished []attempt
	// spare are sockets a refusal left unconnected, ready for reuse.
	spare   []int
	events  []unix.EpollEvent
	started int
}

// pendingConnect is a socket whose connect has not finished.
type pendingConnect struct {
	attempt
	fd       int
	deadline time.Time
}

func newSocketConnector(control netx.ControlFunc, addr netip.Addr) (*socketConnector, error) {
	addr = addr.WithZone("").Unmap()
	c := &socketConnector{control: control, addr: addr, pending: map[int32]*pendingConnect{},
		events: make([]unix.EpollEvent, 128)}
	if addr.Is4() {
		c.network, c.family, c.sa = "tcp4", unix.AF_INET, &unix.SockaddrInet4{Addr: addr.As4()}
	} else {
		c.network, c.family, c.sa = "tcp6", unix.AF_INET6, &unix.SockaddrInet6{Addr: addr.As16()}
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	if err := unix.SetNonblock(epfd, true); err != nil {
		unix.Close(epfd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	// A non-blocking descriptor makes a file the runtime's poller watches.
	c.ep, c.epfd = os.NewFile(uintptr(epfd), "portscan-epoll"), epfd
	if c.rawEp, err = c.ep.SyscallConn(); err != nil {
		c.ep.Close()
		return nil, err
	}
	return c, nil
}

func (c *socketConnector) start(port uint16, retry bool, timeout time.Duration) error {
	fd, err := c.socket()
	if err != nil {
		return fmt.Errorf("portscan: port %d: %w", port, err)
	}
	if err := c.control(c.network, netip.AddrPortFrom(c.addr, port).String(), socketConn(fd)); err != nil {
		unix.Close(fd)
		return fmt.Errorf("portscan: port %d: %w", port, err)
	}
	switch sa := c.sa.(type) {
	case *unix.SockaddrInet4:
		sa.Port = int(port)
	case *unix.SockaddrInet6:
		sa.Port = int(port)
	}
	p := &pendingConnect{attempt: attempt{port: port, retry: retry, launched: time.Now()}, fd: fd}
	p.deadline = p.launched.Add(timeout)
	err = unix.Connect(fd, c.sa)
	if err == unix.EINPROGRESS {
		// On loopback the answer is in before connect returns: asking
		// again takes it (EALREADY while there is none), which spares
		// the epoll registration and the wake-up it causes.
		err = unix.Connect(fd, c.sa)
	}
	switch err {
	case unix.EALREADY:
		ev := unix.EpollEvent{Events: unix.EPOLLOUT, Fd: int32(fd)}
		if err := unix.EpollCtl(c.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			unix.Close(fd)
			return fmt.Errorf("portscan: port %d: %w", port, os.NewSyscallError("epoll_ctl", err))
		}
		c.pending[int32(fd)] = p
		heap.Push(&c.deadlines, p)
	case unix.EISCONN:
		c.finish(p, nil, true)
	default:
		c.finish(p, err, true)
	}
	if c.started++; c.started%harvestEvery == 0 {
		return c.harvest()
	}
	return nil
}

// socket returns a socket to connect: a spare one, or a new one.
func (c *socketConnector) socket() (int, error) {
	if n := len(c.spare); n > 0 {
		fd := c.spare[n-1]
		c.spare = c.spare[:n-1]
		return fd, nil
	}
	fd, err := unix.Socket(c.family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	return fd, os.NewSyscallError("socket", err)
}

// finish records the outcome of p's connect, err (nil when it
// connected), and closes its socket; or, when the port refused and the
// socket is reusable (never registered with epoll), dissolves the
// attempt and keeps the socket for the next connect, which spares a
// socket and a close per closed port.
func (c *socketConnector) finish(p *pendingConnect, err error, reusable bool) {
	if reusable && err == unix.ECONNREFUSED && disconnect(p.fd) == nil {
		c.spare = append(c.spare, p.fd)
	} else {
		unix.Close(p.fd)
	}
	a := p.attempt
	a.took = time.Since(a.launched)
	if err == nil {
		a.answered, a.open = true, true
	} else {
		a.answered, a.open, a.err = outcome(a.port, err)
	}
	c.finished = append(c.finished, a)
}

// disconnect returns a socket whose connect failed to its unconnected
// state: connect(2) to an AF_UNSPEC address, which x/sys/unix has no
// Sockaddr for.
func disconnect(fd int) error {
	sa := unix.RawSockaddr{Family: unix.AF_UNSPEC}
	if _, _, errno := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(&sa)), unsafe.Sizeof(sa)); errno != 0 {
		return errno
	}
	return nil
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
			delete(c.pending, ev.Fd)
			c.finish(p, pendingError(p.fd), false)
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
		if c.pending[int32(p.fd)] != p {
			continue // finished already; the descriptor may be reused
		}
		delete(c.pending, int32(p.fd))
		c.finish(p, unix.ETIMEDOUT, false)
	}
}

func (c *socketConnector) next(ctx context.Context) (attempt, error) {
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
	for _, fd := range c.spare {
		unix.Close(fd)
	}
	c.pending, c.spare = nil, nil
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
