// Package sweep runs a clean-up function on a ticker until stopped, for
// the artifact stores that delete what has expired.
package sweep

import (
	"sync"
	"time"
)

// Loop calls its function every interval on a goroutine of its own.
// Build it with Start; Stop ends it.
type Loop struct {
	stop chan struct{}
	once sync.Once
	done chan struct{}
}

// Start calls fn with the tick's time every interval until Stop.
func Start(interval time.Duration, fn func(now time.Time)) *Loop {
	l := &Loop{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				return
			case now := <-t.C:
				fn(now)
			}
		}
	}()
	return l
}

// Interval is how often a store with artifacts that live ttl sweeps:
// every ttl/24, or every minute, whichever is longer.
func Interval(ttl time.Duration) time.Duration { return max(ttl/24, time.Minute) }

// Stop ends the loop and waits for a call in progress. It may be called
// more than once.
func (l *Loop) Stop() {
	l.once.Do(func() { close(l.stop) })
	<-l.done
}
