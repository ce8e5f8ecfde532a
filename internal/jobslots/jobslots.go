// Package jobslots admits jobs to a fixed number of slots, with a
// bounded queue of jobs waiting for one: the admission of the browser
// pool and of the Lighthouse runner, which turn away what it refuses as
// busy.
//
// # Concurrency
//
// Slots are safe for concurrent use.
package jobslots

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// Errors of Acquire.
var (
	// ErrBusy means every slot is taken and the queue is full, or the
	// caller's context ended while it waited.
	ErrBusy = errors.New("jobslots: busy")
	// ErrStopped means the stop channel closed while the caller waited.
	ErrStopped = errors.New("jobslots: stopped")
)

// Slots are the slots and the wait queue. Build them with New.
type Slots struct {
	run  chan struct{}
	wait chan struct{}
	// ending counts the taken slots marked Ending: slots about to be
	// free, which a caller waits for rather than being turned away.
	ending atomic.Int32
}

// New returns size slots (at least one) with a queue of queue places
// (none when zero or less).
func New(size, queue int) *Slots {
	return &Slots{run: make(chan struct{}, max(size, 1)), wait: make(chan struct{}, max(queue, 0))}
}

// Acquire takes a slot: a free one at once; else it waits for one,
// holding a place in the queue, or without one when the queue is full
// but a slot is ending. It fails with ErrBusy when it may not wait or
// ctx ends first, and with ErrStopped when stop (which may be nil) is
// closed first. A slot taken must be given back with Release.
func (s *Slots) Acquire(ctx context.Context, stop <-chan struct{}) error {
	select {
	case s.run <- struct{}{}:
		return nil
	default:
	}
	select {
	case s.wait <- struct{}{}:
		defer func() { <-s.wait }()
	default:
		if s.ending.Load() == 0 {
			return ErrBusy
		}
	}
	select {
	case s.run <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ErrBusy
	case <-stop:
		return ErrStopped
	}
}

// Release gives back a slot Acquire took.
func (s *Slots) Release() { <-s.run }

// Ending marks a taken slot as about to be free: its job has answered
// and only cleans up. Call done after releasing that slot.
func (s *Slots) Ending() (done func()) {
	s.ending.Add(1)
	return func() { s.ending.Add(-1) }
}

// Size is the number of slots.
func (s *Slots) Size() int { return cap(s.run) }

// Running is the number of slots taken now.
func (s *Slots) Running() int { return len(s.run) }

// Waiting is the number of callers in the queue now.
func (s *Slots) Waiting() int { return len(s.wait) }

// RetryAfter estimates when a caller turned away now could be served,
// when a job takes avg: see QueueWait, for every job running or queued.
func (s *Slots) RetryAfter(avg time.Duration) time.Duration {
	return QueueWait(avg, s.Running()+s.Waiting(), s.Size())
}

// QueueWait estimates how long a caller arriving behind ahead jobs (the
// running ones and the queued ones) waits for one of slots, when a job
// takes avg: the jobs ahead drain slots at a time, in whole rounds. It
// is at least a second and at most a minute, the range a Retry-After
// header is useful in.
func QueueWait(avg time.Duration, ahead, slots int) time.Duration {
	slots = max(slots, 1)
	rounds := (ahead + slots - 1) / slots
	return min(max(avg*time.Duration(rounds), time.Second), time.Minute)
}
