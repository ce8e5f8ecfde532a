package portscan

import "time"

// Pacing, after nmap's scan engine: the window starts at
// initialWindow connects (or the cap, if lower), grows by one per answer
// (doubling every round trip) and halves, down to minWindow, when a
// connect goes unanswered, at most once per round trip. Timeouts follow the measured round trip as TCP
// does (RFC 6298: smoothed RTT plus four deviations), never below
// minTimeout, never above the scan's Timeout.
const (
	initialWindow = 250
	minWindow     = 10
	minTimeout    = 100 * time.Millisecond
)

// window is how many connects a scan keeps in flight and how long each
// waits, learnt from the answers so far. The goroutine that runs the
// scan is its only user.
type window struct {
	max, cur int
	// limit is the scan's Timeout: the first connects' and every retry's.
	limit time.Duration
	// srtt and rttvar are the smoothed round trip and its deviation;
	// srtt is zero until the first answer.
	srtt, rttvar time.Duration
	// cut is when the window last halved: connects launched before it
	// belong to the round trip that already paid for its losses.
	cut time.Time
}

// newWindow returns the window of a scan with at most concurrency
// connects in flight (DefaultConcurrency when zero) and limit as its
// longest wait.
func newWindow(concurrency int, limit time.Duration) *window {
	max := concurrencyOf(concurrency)
	return &window{max: max, cur: min(initialWindow, max), limit: limit}
}

// size is how many connects may be in flight now.
func (w *window) size() int {
	return w.cur
}

// timeout is how long the next connect may wait: limit for a retry and
// until the round trip is known, else the round trip's bound.
func (w *window) timeout(retry bool) time.Duration {
	if retry || w.srtt == 0 {
		return w.limit
	}
	return min(max(w.srtt+4*w.rttvar, minTimeout), w.limit)
}

// answered records a connect answered (accepted or refused) after took:
// the window grows and the round trip estimate takes the sample.
func (w *window) answered(took time.Duration) {
	w.cur = min(w.cur+1, w.max)
	if w.srtt == 0 {
		w.srtt, w.rttvar = took, took/2
		return
	}
	diff := w.srtt - took
	if diff < 0 {
		diff = -diff
	}
	w.rttvar = (3*w.rttvar + diff) / 4
	w.srtt = (7*w.srtt + took) / 8
}

// silent records a connect launched at launched that got no answer in
// time: a sign of loss or rate limiting, so the window halves, once per
// round trip as TCP's does (the connects launched before the last cut
// were already in flight when it was made).
func (w *window) silent(launched, now time.Time) {
	if launched.Before(w.cut) {
		return
	}
	w.cur = max(w.cur/2, min(minWindow, w.max))
	w.cut = now
}
