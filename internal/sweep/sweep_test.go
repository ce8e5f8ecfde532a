package sweep

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestLoop(t *testing.T) {
	var calls atomic.Int32
	l := Start(time.Millisecond, func(time.Time) { calls.Add(1) })
	deadline := time.Now().Add(5 * time.Second)
	for calls.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	l.Stop()
	l.Stop()
	got := calls.Load()
	if got < 3 {
		t.Fatalf("got %d calls in 5 s at 1 ms, want at least 3", got)
	}
	time.Sleep(10 * time.Millisecond)
	if after := calls.Load(); after != got {
		t.Errorf("got %d calls after Stop, want %d", after, got)
	}
}

func TestInterval(t *testing.T) {
	for _, c := range []struct{ ttl, want time.Duration }{
		{24 * time.Hour, time.Hour},
		{10 * time.Minute, time.Minute},
	} {
		if got := Interval(c.ttl); got != c.want {
			t.Errorf("Interval(%v) = %v, want %v", c.ttl, got, c.want)
		}
	}
}
