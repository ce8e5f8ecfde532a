package portscan

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/sitediag/sitediag/net/netx"
	"golang.org/x/sys/unix"
)

// TestScanControlBeforeConnect: the scan's own sockets are judged by
// Control on their literal address, and a refused address is never
// connected to.
func TestScanControlBeforeConnect(t *testing.T) {
	refused := netip.MustParseAddr("127.0.0.2")
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	dial, control := guarded("127.0.0.1/32")
	var mu sync.Mutex
	var judged []string
	record := func(network, address string, c syscall.RawConn) error {
		mu.Lock()
		judged = append(judged, network+" "+address)
		mu.Unlock()
		return control(network, address, c)
	}
	_, err = Scan(context.Background(), dial, refused, []uint16{port}, Options{Control: record})
	if !errors.Is(err, netx.ErrNotAllowed) {
		t.Fatalf("err = %v, want netx.ErrNotAllowed", err)
	}
	if want := []string{"tcp4 127.0.0.2:" + strconv.Itoa(int(port))}; !slices.Equal(judged, want) {
		t.Errorf("Control judged %v, want %v", judged, want)
	}
	// Had the scan connected, its connection would be the first in the
	// accept queue; ours must be.
	mine, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	first, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if first.RemoteAddr().String() != mine.LocalAddr().String() {
		t.Fatalf("the refused listener accepted %v before our own connection %v", first.RemoteAddr(), mine.LocalAddr())
	}
}

// TestScanCancelClosesItsSockets: a scan cancelled with connects in
// flight returns ctx's error and leaves no descriptor open.
func TestScanCancelClosesItsSockets(t *testing.T) {
	silent := silentPort(t, loopback)
	ports := make([]uint16, 100)
	for i := range ports {
		ports[i] = silent
	}
	dial, control := guarded("127.0.0.1/32")
	before := openDescriptors(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var judged atomic.Int32
	cancelMidway := func(network, address string, c syscall.RawConn) error {
		if judged.Add(1) == 50 {
			cancel()
		}
		return control(network, address, c)
	}
	_, err := Scan(ctx, dial, loopback, ports, Options{Control: cancelMidway})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if judged := judged.Load(); judged < 50 {
		t.Fatalf("only %d sockets were judged before the scan ended", judged)
	}
	if after := openDescriptors(t); !slices.Equal(after, before) {
		t.Fatalf("descriptors open before the scan %v, after %v", before, after)
	}
}

// openDescriptors lists the descriptors this process has open.
func openDescriptors(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	slices.Sort(names)
	return names
}

// TestScanSelfConnectIsNotOpen: a socket whose source port is the port
// it connects to, on the same address, connects to itself when nothing
// listens there (TCP simultaneous open); that port is closed.
func TestScanSelfConnectIsNotOpen(t *testing.T) {
	addr := privateLoopback()
	port := closedOn(t, addr)
	dial, control := guarded(netip.PrefixFrom(addr, 32).String())
	bindToTarget := func(network, address string, c syscall.RawConn) error {
		var err error
		c.Control(func(fd uintptr) {
			err = unix.Bind(int(fd), &unix.SockaddrInet4{Port: int(port), Addr: addr.As4()})
		})
		if err != nil {
			return err
		}
		return control(network, address, c)
	}
	res, err := Scan(context.Background(), dial, addr, []uint16{port}, Options{Control: bindToTarget})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Open) != 0 {
		t.Fatalf("open = %v, want none: the socket connected to itself", res.Open)
	}
}
