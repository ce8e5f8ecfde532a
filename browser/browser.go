// Package browser runs pages in headless Chromium (through go-rod) for
// the operations that need a real browser: screenshots, PDFs, and later
// scraping, meta data, mixed content, audits and brand extraction.
//
// A Pool keeps one warm browser, started on first use, and runs jobs on
// it: each job gets its own browser context (cookies, storage and cache
// of its own), its own filtering proxy and a total deadline. While a job
// runs, the next job's blank page (context and proxy included) is opened
// ahead, emulating the default device, and its renderer warmed up (see
// warmJS), so a job rarely waits for one or pays for a cold renderer. JavaScript
// dialogs are dismissed, downloads denied and pages a job did not create
// closed. The number of jobs at once is bounded, with a bounded wait
// queue; past it Start fails with a *BusyError. The browser is replaced
// after a number of jobs, when its connection drops and when a page
// crashes; its whole process group is killed, and nothing it started
// outlives Close.
//
// # Safety
//
// The browser reaches the network only through the Network's proxies
// (sitediag passes its SSRF guard): every
// request a page makes, sub-resources, frames, fetches, WebSockets and
// workers included, is resolved with sitediag's resolver and checked
// against the SSRF policy by the proxy, which then dials the checked
// address. The browser-wide proxy refuses everything; each job's browser
// context points at the job's own proxy, which also counts what it
// refused. A proxy that demands credentials (a netx.AuthProxy, for browsers
// on other hosts) has them answered by the job's page, and by no other.
// The browser's own resolver is disabled, QUIC is off and WebRTC may not
// send UDP around the proxy (see Flags). Safety never rests on the
// DevTools protocol's request interception; a job behind a netx.AuthProxy
// uses it only to answer its own proxy's challenge.
//
// # Concurrency
//
// A Pool is safe for concurrent use. A Job belongs to the function it is
// handed to.
package browser

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/sitediag/sitediag/internal/jobslots"
	"github.com/sitediag/sitediag/internal/tracing"
	"github.com/sitediag/sitediag/net/netx"
	"go.opentelemetry.io/otel/attribute"
)

// Defaults of Config.
const (
	DefaultMaxJobs      = 2
	DefaultRestartAfter = 100
	DefaultJobTimeout   = 60 * time.Second
)

// Errors Start and Do return besides those of the job itself.
var (
	// ErrNotFound means no Chromium binary was found.
	ErrNotFound = errors.New("browser: Chromium not found")
	// ErrClosed means the pool was closed.
	ErrClosed = errors.New("browser: pool closed")
	// ErrCrashed means the browser or the job's page crashed or went
	// away during the job.
	ErrCrashed = errors.New("browser: the browser or the page crashed")
)

// BusyError means every job slot is taken and the wait queue is full (or
// the caller's deadline passed while it waited).
type BusyError struct {
	// RetryAfter estimates when a slot will be free.
	RetryAfter time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("browser: busy, retry after %s", e.RetryAfter.Round(time.Second))
}

// UnavailableError means the browser could not be started or reached.
type UnavailableError struct {
	Err error
}

func (e *UnavailableError) Error() string { return "browser: unavailable: " + e.Err.Error() }

// Unwrap returns the cause.
func (e *UnavailableError) Unwrap() error { return e.Err }

// Config configures a Pool. Only Network is required.
type Config struct {
	// Network applies the SSRF policy to everything the browser loads.
	// Required.
	Network netx.Network
	// Path is the Chromium binary (see Find). If empty, chromium,
	// chromium-browser and google-chrome are looked up on PATH.
	Path string
	// RemoteURL, if set, is a running browser to use instead of launching
	// one: its DevTools WebSocket URL (ws://…) or HTTP endpoint
	// (http://host:port). It must reach the job proxies where Network
	// puts them: on this host's loopback, a browser sharing this host's
	// network (a sidecar); at an address of this host, with credentials
	// (netx.AuthProxy), a browser on another host. It must have been started
	// with the flags of Flags, the proxy's URL as the browser-wide one,
	// for the browser-wide settings (QUIC, WebRTC, resolver) that a job
	// cannot set.
	RemoteURL string
	// MaxJobs is the number of jobs run at once. If zero,
	// DefaultMaxJobs.
	MaxJobs int
	// MaxQueue is the number of jobs that may wait for a slot. If zero,
	// four times MaxJobs; negative means none wait.
	MaxQueue int
	// RestartAfter replaces the browser after that many jobs. If zero,
	// DefaultRestartAfter.
	RestartAfter int
	// JobTimeout bounds each job from the moment it has a slot. If zero,
	// DefaultJobTimeout.
	JobTimeout time.Duration
}

// Pool runs jobs on one warm browser. Build it with New; Close it.
type Pool struct {
	cfg Config
	// slots admits the jobs; a job that has answered and holds its slot
	// only while its page closes marks it Ending, a slot a caller waits
	// for rather than being told the pool is busy.
	slots   *jobslots.Slots
	closing chan struct{}
	jobs    sync.WaitGroup // jobs in flight
	bg      sync.WaitGroup // instance monitors and closers
	// starting is held by the job that looks for (and maybe starts) the
	// browser: one start at a time, waited for while ctx lasts.
	starting chan struct{}

	mu       sync.Mutex
	closed   bool
	cur      *instance
	live     map[*instance]struct{}
	startErr error
	avgJob   time.Duration
	// Counters for Stats.
	starts, crashes, rejected uint64
}

// New returns a pool; no browser starts until the first job.
func New(cfg Config) (*Pool, error) {
	if cfg.Network == nil {
		return nil, errors.New("browser: Config.Network is required")
	}
	if cfg.RemoteURL != "" {
		if _, err := url.Parse(cfg.RemoteURL); err != nil {
			return nil, fmt.Errorf("browser: RemoteURL: %w", err)
		}
	}
	if cfg.MaxJobs <= 0 {
		cfg.MaxJobs = DefaultMaxJobs
	}
	switch {
	case cfg.MaxQueue == 0:
		cfg.MaxQueue = 4 * cfg.MaxJobs
	case cfg.MaxQueue < 0:
		cfg.MaxQueue = 0
	}
	if cfg.RestartAfter <= 0 {
		cfg.RestartAfter = DefaultRestartAfter
	}
	if cfg.JobTimeout <= 0 {
		cfg.JobTimeout = DefaultJobTimeout
	}
	return &Pool{
		cfg:      cfg,
		slots:    jobslots.New(cfg.MaxJobs, cfg.MaxQueue),
		closing:  make(chan struct{}),
		starting: make(chan struct{}, 1),
		live:     map[*instance]struct{}{},
	}, nil
}

// Do runs fn as one job: it waits for a slot (or fails with *BusyError),
// starts the browser if needed, opens a browser context and a page with
// opts, and hands them to fn with the job's context, whose deadline is
// Config.JobTimeout, or opts.Timeout when that is shorter. Everything the job opened is released once fn
// returns, in the background: the job's slot stays taken until it is, and
// Close waits for it. When the browser or the page crashes during the job, or the
// pool is closed, the job's context is cancelled and the error wraps
// ErrCrashed or ErrClosed.
//
// When ctx holds a recording OpenTelemetry span, the job is a "browser
// job" span under it (on the same TracerProvider), with the time it
// waited for its slot, and an event at the end of each phase: "slot
// acquired", "browser ready", "proxy ready" and "context ready" (when
// the job opens its own rather than taking the spare), "page ready",
// then those of Job.Load and Job.Screenshot.
func (p *Pool) Do(ctx context.Context, opts JobOptions, fn func(ctx context.Context, j *Job) error) (err error) {
	ctx, span := tracing.Start(ctx, tracing.SpanBrowserJob, attribute.String("sitediag.browser.device", string(cmp.Or(opts.Device, Desktop))))
	defer func() { tracing.End(span, err) }()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	p.jobs.Add(1)
	p.mu.Unlock()
	// over gives back what the job holds so far; once the job has a page,
	// a background close of that page takes it over (see below).
	over := p.jobs.Done
	defer func() {
		if over != nil {
			over()
		}
	}()

	queued := time.Now()
	if err := p.acquire(ctx); err != nil {
		return err
	}
	over = func() {
		p.slots.Release()
		p.jobs.Done()
	}
	span.AddEvent("slot acquired")
	span.SetAttributes(attribute.Float64("sitediag.browser.slot_wait_ms", float64(time.Since(queued))/float64(time.Millisecond)))
	// The deadline runs from here: starting the browser is part of the job.
	ctx, cancelTimeout := context.WithTimeout(ctx, p.JobTimeout(opts))
	defer cancelTimeout()
	in, err := p.instance(ctx)
	if err != nil {
		return err
	}
	span.AddEvent("browser ready")
	start := time.Now()
	held := over
	over = func() {
		p.release(in, start)
		held()
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-in.dead:
			cancel(ErrCrashed)
		case <-p.closing:
			cancel(ErrClosed)
		case <-ctx.Done():
		}
	}()

	j, err := in.start(ctx, p.cfg.Network, opts, cancel)
	p.prepareSpare(ctx, in)
	if err == nil {
		span.AddEvent("page ready")
		err = fn(ctx, j)
		cancel(nil)
		// The caller has its answer now: the job's network ends here
		// (its proxy refuses the credentials from now on, so nothing the
		// page still runs reaches out), and the page is closed in the
		// background, the job keeping its slot (and counting for Close)
		// until it is.
		j.proxy.Close()
		release := over
		over = nil
		ended := p.slots.Ending()
		go func() {
			j.close(ctx)
			release()
			ended()
		}()
	}
	if err == nil {
		return nil
	}
	cause := context.Cause(ctx)
	select {
	case <-in.dead:
		// The connection is marked dead before any call sees it fail, so
		// an error from a dying browser is always told apart.
		cause = ErrCrashed
	default:
	}
	if !errors.Is(err, cause) && (errors.Is(cause, ErrCrashed) || errors.Is(cause, ErrClosed)) {
		return fmt.Errorf("%w: %w", cause, err)
	}
	return err
}

// JobTimeout is the deadline of a job with opts: Config.JobTimeout, or
// opts.Timeout when that is shorter.
func (p *Pool) JobTimeout(opts JobOptions) time.Duration {
	if opts.Timeout > 0 {
		return min(opts.Timeout, p.cfg.JobTimeout)
	}
	return p.cfg.JobTimeout
}

// prepareSpare has in open a blank page for the next job while this one
// runs, so that job does not wait for a page.
func (p *Pool) prepareSpare(ctx context.Context, in *instance) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || in.retired {
		return
	}
	p.bg.Add(1)
	if !in.prepareSpare(ctx, p.cfg.Network, p.bg.Done) {
		p.bg.Done()
	}
}

// acquire takes a job slot, waiting in the queue when there is room, or
// for a slot whose job has answered and whose page is closing.
func (p *Pool) acquire(ctx context.Context) error {
	switch err := p.slots.Acquire(ctx, p.closing); {
	case errors.Is(err, jobslots.ErrStopped):
		return ErrClosed
	case err != nil:
		return p.busy()
	}
	return nil
}

// busy counts a job turned away and says when to come back.
func (p *Pool) busy() *BusyError {
	p.mu.Lock()
	p.rejected++
	p.mu.Unlock()
	return &BusyError{RetryAfter: p.retryAfter()}
}

// retryAfter estimates when a caller turned away now could be served:
// every job running or queued ahead of it, at the average job duration
// (5 s before any job ended).
func (p *Pool) retryAfter() time.Duration {
	p.mu.Lock()
	avg := p.avgJob
	p.mu.Unlock()
	if avg == 0 {
		avg = 5 * time.Second
	}
	return p.slots.RetryAfter(avg)
}

// instance returns the current browser, starting one when there is none
// or the current one is retired.
func (p *Pool) instance(ctx context.Context) (*instance, error) {
	select {
	case p.starting <- struct{}{}:
		defer func() { <-p.starting }()
	case <-ctx.Done():
		return nil, &UnavailableError{Err: context.Cause(ctx)}
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	if in := p.cur; in != nil {
		select {
		case <-in.dead:
			// Gone; its monitor has not caught up yet.
			p.retireLocked(in)
		default:
			p.take(in)
			p.mu.Unlock()
			return in, nil
		}
	}
	p.mu.Unlock()

	in, err := startInstance(ctx, p.cfg, p.retire)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			// A start the caller gave up on says nothing about the browser.
			p.startErr = err
		}
		return nil, err
	}
	p.startErr = nil
	p.starts++
	p.live[in] = struct{}{}
	p.bg.Add(1)
	go p.monitor(in)
	if p.closed {
		p.retireLocked(in)
		p.closeLocked(in)
		return nil, ErrClosed
	}
	p.cur = in
	p.take(in)
	return in, nil
}

// take counts a job on in; the job that reaches RestartAfter retires it.
// p.mu is held.
func (p *Pool) take(in *instance) {
	in.active++
	in.started++
	if in.started >= p.cfg.RestartAfter {
		p.retireLocked(in)
	}
}

// release ends a job on in.
func (p *Pool) release(in *instance, start time.Time) {
	d := time.Since(start)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.avgJob == 0 {
		p.avgJob = d
	} else {
		p.avgJob = (4*p.avgJob + d) / 5
	}
	in.active--
	if in.retired && in.active == 0 {
		p.closeLocked(in)
	}
}

// retire takes in out of service; it closes once its jobs are done.
func (p *Pool) retire(in *instance) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.retireLocked(in)
	if in.active == 0 {
		p.closeLocked(in)
	}
}

// retireLocked takes in out of service. p.mu is held.
func (p *Pool) retireLocked(in *instance) {
	in.retired = true
	if p.cur == in {
		p.cur = nil
	}
}

// closeLocked closes in in the background. p.mu is held.
func (p *Pool) closeLocked(in *instance) {
	if _, ok := p.live[in]; !ok {
		return
	}
	delete(p.live, in)
	p.bg.Add(1)
	go func() {
		defer p.bg.Done()
		in.close()
	}()
}

// monitor retires in when its connection drops (the browser exited or
// crashed, or was closed) and cleans up after it at once: its jobs fail
// with ErrCrashed.
func (p *Pool) monitor(in *instance) {
	defer p.bg.Done()
	<-in.dead
	p.mu.Lock()
	if _, live := p.live[in]; live && !p.closed {
		p.crashes++ // it died before the pool closed it
	}
	p.retireLocked(in)
	p.closeLocked(in)
	p.mu.Unlock()
}

// Close cancels the running jobs, stops the browser and waits until
// everything it started is gone. Calls after Close fail with ErrClosed.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.closing)
	p.mu.Unlock()
	p.jobs.Wait()
	p.mu.Lock()
	for in := range p.live {
		p.retireLocked(in)
		p.closeLocked(in)
	}
	p.mu.Unlock()
	p.bg.Wait()
	return nil
}

// PoolStats are the pool's gauges and counters, for metrics.
type PoolStats struct {
	// Slots is how many jobs may run at once; Running and Waiting how
	// many run and wait now.
	Slots, Running, Waiting int
	// Starts counts the browsers started, Crashes those that died before
	// the pool closed them, Rejected the jobs turned away as busy.
	Starts, Crashes, Rejected uint64
}

// Stats returns the pool's current gauges and counters.
func (p *Pool) Stats() PoolStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return PoolStats{Slots: p.slots.Size(), Running: p.slots.Running(), Waiting: p.slots.Waiting(),
		Starts: p.starts, Crashes: p.crashes, Rejected: p.rejected}
}

// Status is the pool's state for a health check.
type Status struct {
	// Ready is false when no browser can run: no binary, a failed start,
	// an unreachable remote browser, or a closed pool.
	Ready bool
	// Busy is true when jobs are waiting for a slot.
	Busy bool
	// Message says what the state is, for people.
	Message string
}

// Status reports whether jobs can run, bounded by ctx. It never starts a
// browser: a local one is looked up, a remote one asked for its version.
func (p *Pool) Status(ctx context.Context) Status {
	p.mu.Lock()
	closed, running, startErr := p.closed, p.cur != nil, p.startErr
	p.mu.Unlock()
	switch {
	case closed:
		return Status{Message: "closed"}
	case running:
		return Status{
			Ready:   true,
			Busy:    p.slots.Waiting() > 0,
			Message: fmt.Sprintf("running; %d of %d job slots in use, %d waiting", p.slots.Running(), p.slots.Size(), p.slots.Waiting()),
		}
	case p.cfg.RemoteURL != "":
		if _, err := resolveRemote(ctx, p.cfg.RemoteURL); err != nil {
			return Status{Message: "remote browser does not answer"}
		}
		return Status{Ready: true, Message: "remote browser answers; connects on first use"}
	}
	path, err := Find(p.cfg.Path)
	if err != nil {
		return Status{Message: "Chromium not found: install chromium or set the Chromium path"}
	}
	if startErr != nil {
		return Status{Message: "Chromium failed to start: " + startErr.Error()}
	}
	return Status{Ready: true, Message: "Chromium found at " + path + "; starts on first use"}
}
