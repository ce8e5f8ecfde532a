package portscan

import (
	"context"
	"net"
	"net/netip"
	"os"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestWindowGrowsWithAnswersAndHalvesOnSilence(t *testing.T) {
	w := newWindow(300, time.Second)
	if w.size() != initialWindow {
		t.Fatalf("initial size %d, want %d", w.size(), initialWindow)
	}
	for range 100 {
		w.answered(time.Millisecond)
	}
	if w.size() != 300 {
		t.Fatalf("size after 100 answers %d, want the cap 300", w.size())
	}
	start := time.Unix(1000, 0)
	w.silent(start, start.Add(time.Second))
	if w.size() != 150 {
		t.Fatalf("size after a silent connect %d, want 150", w.size())
	}
	// Connects launched before that cut were in the same round trip.
	w.silent(start.Add(time.Millisecond), start.Add(2*time.Second))
	if w.size() != 150 {
		t.Fatalf("size after a second loss of the same round trip %d, want 150", w.size())
	}
	for i := range 10 {
		at := start.Add(time.Duration(i+2) * time.Second)
		w.silent(at, at)
	}
	if w.size() != minWindow {
		t.Fatalf("size after many silent connects %d, want %d", w.size(), minWindow)
	}
	if small := newWindow(3, time.Second); small.size() != 3 {
		t.Fatalf("a cap of 3 starts at %d", small.size())
	}
}

func TestWindowTimeoutFollowsTheRoundTrip(t *testing.T) {
	w := newWindow(0, 1500*time.Millisecond)
	if got := w.timeout(false); got != 1500*time.Millisecond {
		t.Fatalf("timeout before any answer %v, want the limit", got)
	}
	for range 50 {
		w.answered(50 * time.Millisecond)
	}
	if got := w.timeout(false); got < 50*time.Millisecond || got > 100*time.Millisecond {
		t.Fatalf("timeout after steady 50 ms answers %v, want between 50 and 100 ms", got)
	}
	if got := w.timeout(true); got != 1500*time.Millisecond {
		t.Fatalf("a retry's timeout %v, want the limit", got)
	}
	fast := newWindow(0, time.Second)
	fast.answered(time.Microsecond)
	if got := fast.timeout(false); got != minTimeout {
		t.Fatalf("timeout after a 1 µs answer %v, want the floor %v", got, minTimeout)
	}
	slow := newWindow(0, time.Second)
	slow.answered(5 * time.Second)
	if got := slow.timeout(false); got != time.Second {
		t.Fatalf("timeout after a 5 s answer %v, want the limit", got)
	}
}

// TestScanRetriesSilentPorts: a port whose first connect goes unanswered
// and whose second is accepted is open, as nmap's retransmission finds it.
func TestScanRetriesSilentPorts(t *testing.T) {
	var mu sync.Mutex
	tries := map[uint16]int{}
	dial := func(ctx context.Context, _, address string) (net.Conn, error) {
		port := netip.MustParseAddrPort(address).Port()
		mu.Lock()
		tries[port]++
		n := tries[port]
		mu.Unlock()
		switch {
		case port == 7 && n == 1:
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}
		case port == 7 || port == 9:
			client, server := net.Pipe()
			server.Close()
			return client, nil
		}
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	res, err := Scan(context.Background(), dial, loopback, []uint16{5, 7, 8, 9}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Open, []uint16{7, 9}) {
		t.Fatalf("open = %v, want [7 9]", res.Open)
	}
	if tries[7] != 2 || tries[5] != 1 {
		t.Fatalf("tries = %v, want port 7 twice and the refused ports once", tries)
	}
}
