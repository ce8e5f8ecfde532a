package jobslots

import (
	"context"
	"errors"
	"testing"
	"time"
)

// One slot with one queue place: the second caller waits and gets the
// slot when it is released, a third is turned away, and without a queue
// place a caller waits only for a slot marked Ending. A waiting caller
// ends with its context (busy) or its stop channel (stopped).
func TestAcquire(t *testing.T) {
	s := New(1, 1)
	if err := s.Acquire(t.Context(), nil); err != nil {
		t.Fatalf("free slot: %v", err)
	}
	got := make(chan error, 1)
	go func() { got <- s.Acquire(t.Context(), nil) }()
	waitUntil(t, func() bool { return s.Waiting() == 1 })
	if err := s.Acquire(t.Context(), nil); !errors.Is(err, ErrBusy) {
		t.Errorf("full queue: %v, want ErrBusy", err)
	}
	if r := s.RetryAfter(3 * time.Second); r != 6*time.Second {
		t.Errorf("RetryAfter with one running and one waiting: %v, want 6s", r)
	}
	s.Release()
	if err := <-got; err != nil {
		t.Errorf("queued caller: %v", err)
	}

	// The slot is taken again. A caller that finds the queue full is
	// turned away, unless a slot is marked Ending: then it waits (and
	// here sees its stop channel closed).
	ctx, cancel := context.WithCancel(t.Context())
	go func() { got <- s.Acquire(ctx, nil) }()
	waitUntil(t, func() bool { return s.Waiting() == 1 })
	closed := make(chan struct{})
	close(closed)
	if err := s.Acquire(t.Context(), closed); !errors.Is(err, ErrBusy) {
		t.Errorf("full queue, no slot ending: %v, want ErrBusy", err)
	}
	done := s.Ending()
	if err := s.Acquire(t.Context(), closed); !errors.Is(err, ErrStopped) {
		t.Errorf("full queue, a slot ending: %v, want ErrStopped (it waited)", err)
	}
	done()
	cancel()
	if err := <-got; !errors.Is(err, ErrBusy) {
		t.Errorf("caller whose context ended: %v, want ErrBusy", err)
	}

	stop := make(chan struct{})
	go func() { got <- s.Acquire(t.Context(), stop) }()
	waitUntil(t, func() bool { return s.Waiting() == 1 })
	close(stop)
	if err := <-got; !errors.Is(err, ErrStopped) {
		t.Errorf("caller whose stop closed: %v, want ErrStopped", err)
	}
	if s.Size() != 1 || s.Running() != 1 || s.Waiting() != 0 {
		t.Errorf("Size, Running, Waiting = %d, %d, %d, want 1, 1, 0", s.Size(), s.Running(), s.Waiting())
	}
}

func TestQueueWait(t *testing.T) {
	for _, tc := range []struct {
		avg          time.Duration
		ahead, slots int
		want         time.Duration
	}{
		// 2 running and 10 queued 3 s jobs on 2 slots: 6 rounds.
		{3 * time.Second, 12, 2, 18 * time.Second},
		{3 * time.Second, 3, 2, 6 * time.Second},
		{10 * time.Second, 1, 1, 10 * time.Second},
		{100 * time.Millisecond, 2, 2, time.Second}, // at least a second
		{30 * time.Second, 10, 1, time.Minute},      // at most a minute
		{3 * time.Second, 4, 0, 12 * time.Second},   // no slots reads as one
	} {
		if got := QueueWait(tc.avg, tc.ahead, tc.slots); got != tc.want {
			t.Errorf("QueueWait(%v, %d, %d) = %v, want %v", tc.avg, tc.ahead, tc.slots, got, tc.want)
		}
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never met")
		}
		time.Sleep(time.Millisecond)
	}
}
