// Package lighthouse runs real Lighthouse audits (the npm package, 12.x)
// on a Chromium of sitediag's own, so that every request an audit makes
// goes through sitediag's filtering proxy.
//
// A Runner keeps one warm Node worker that has loaded Lighthouse, and a
// Chromium (started with browser.Flags, its browser-wide proxy refusing
// everything) ready for the next audit: each audit gets a Chromium of
// its own, as the Lighthouse CLI does, so that no browser state carries
// from one audit to the next; the next one is launched once an audit
// ends. Each audit runs in a new browser context whose proxy is a
// filtering proxy of the job's own (Config.Network), which counts what
// it refused. Audits run
// one at a time, with a short wait queue; past it Audit fails with a
// *browser.BusyError. A worker that hangs past the job's deadline or
// dies is killed with its process group, and the next audit starts a
// new one; nothing outlives Close.
//
// The package.json and lock file in this folder pin Lighthouse (Version);
// make setup installs it outside the checkout, where FindDir finds it
// from any working directory.
package lighthouse

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/internal/jobslots"
	"github.com/sitediag/sitediag/net/netx"
)

//go:embed worker.mjs
var workerJS []byte

// Defaults of Config.
const (
	DefaultJobTimeout = 90 * time.Second
	DefaultMaxQueue   = 2
)

// ErrUnavailable means Node, the Lighthouse package or Chromium is
// missing, or the worker could not be started.
var ErrUnavailable = errors.New("lighthouse: unavailable")

// Config configures a Runner. Network is required.
type Config struct {
	// Network gives each audit its filtering proxy, on this host's
	// loopback: Lighthouse's Chromium runs here and does not answer a
	// proxy's challenge, so a netx.AuthProxy refuses its requests.
	Network netx.Network
	// ChromePath is the Chromium binary (see browser.Find).
	ChromePath string
	// Dir holds node_modules/lighthouse. If empty, the first of
	// DefaultDirs that holds it (see FindDir).
	Dir string
	// Node is the node binary. If empty, node on PATH.
	Node string
	// JobTimeout bounds each audit from the moment it has the worker. If
	// zero, DefaultJobTimeout.
	JobTimeout time.Duration
	// MaxQueue is how many audits may wait for the worker. If zero,
	// DefaultMaxQueue; negative means none wait.
	MaxQueue int
}

// Runner runs audits. Build it with New; Close it.
type Runner struct {
	cfg Config
	// slot admits one audit at a time, with cfg.MaxQueue waiting.
	slot *jobslots.Slots

	mu     sync.Mutex
	w      *worker
	closed bool
	avg    time.Duration
}

// New returns a Runner; nothing starts until the first audit.
func New(cfg Config) (*Runner, error) {
	if cfg.Network == nil {
		return nil, errors.New("lighthouse: Config.Network is required")
	}
	if cfg.JobTimeout <= 0 {
		cfg.JobTimeout = DefaultJobTimeout
	}
	switch {
	case cfg.MaxQueue == 0:
		cfg.MaxQueue = DefaultMaxQueue
	case cfg.MaxQueue < 0:
		cfg.MaxQueue = 0
	}
	return &Runner{cfg: cfg, slot: jobslots.New(1, cfg.MaxQueue), avg: 10 * time.Second}, nil
}

// JobTimeout is the deadline of each audit.
func (r *Runner) JobTimeout() time.Duration { return r.cfg.JobTimeout }

// find checks that Node, the package and Chromium are there. Its errors
// name no file of the host.
func (r *Runner) find() (node, chrome, dir string, err error) {
	node = r.cfg.Node
	if node == "" {
		node = "node"
	}
	if node, err = exec.LookPath(node); err != nil {
		return "", "", "", fmt.Errorf("%w: Node is not installed", ErrUnavailable)
	}
	if dir, err = FindDir(r.cfg.Dir); err != nil {
		return "", "", "", err
	}
	if chrome, err = browser.Find(r.cfg.ChromePath); err != nil {
		return "", "", "", fmt.Errorf("%w: Chromium is not installed", ErrUnavailable)
	}
	return node, chrome, dir, nil
}

// Status says whether audits can run, without starting anything. The
// message names no file of the host: services show it to their callers.
func (r *Runner) Status() (ready bool, message string) {
	if _, _, _, err := r.find(); err != nil {
		return false, err.Error()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w != nil {
		return true, "worker running"
	}
	return true, "Lighthouse " + Version + " found; the worker starts on first use"
}

// acquire takes the worker's slot, waiting in the bounded queue. When
// it may not, it estimates when a caller turned away now could be
// served: the audit running and every queued one, at the average audit
// duration.
func (r *Runner) acquire(ctx context.Context) error {
	if err := r.slot.Acquire(ctx, nil); err != nil {
		r.mu.Lock()
		avg := r.avg
		r.mu.Unlock()
		return &browser.BusyError{RetryAfter: r.slot.RetryAfter(avg)}
	}
	return nil
}

// Close stops the worker and its Chromium.
func (r *Runner) Close() error {
	r.mu.Lock()
	r.closed = true
	w := r.w
	r.w = nil
	r.mu.Unlock()
	if w != nil {
		w.kill()
	}
	return nil
}

// worker returns the running worker, starting one when there is none.
func (r *Runner) worker(ctx context.Context) (*worker, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, fmt.Errorf("%w: closed", ErrUnavailable)
	}
	if r.w != nil && r.w.alive() {
		return r.w, nil
	}
	if r.w != nil {
		r.w.kill()
		r.w = nil
	}
	node, chrome, dir, err := r.find()
	if err != nil {
		return nil, err
	}
	w, err := startWorker(ctx, r.cfg.Network, node, chrome, dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	r.w = w
	return w, nil
}

// discard kills w if it is still the current worker.
func (r *Runner) discard(w *worker) {
	r.mu.Lock()
	if r.w == w {
		r.w = nil
	}
	r.mu.Unlock()
	w.kill()
}
