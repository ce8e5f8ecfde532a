package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// failedPoolRest is how long a browser that could not be reached is
// tried only after the others.
const failedPoolRest = 10 * time.Second

// Fleet spreads jobs over several browsers, a Pool each, so that browser
// capacity grows apart from the API: each job goes to the browser with
// the fewest jobs running and waiting, and a browser that cannot be
// reached or started is tried only after the others for a while. Build
// it with NewFleet; Close it.
//
// The browsers are remote ones (Config.RemoteURL), each with
// Config.MaxJobs slots and its own queue. As for one remote browser,
// they reach the jobs' filtering proxies where Config.Network puts them:
// this host's loopback when they share its network, else an address they
// reach, behind per-job credentials (netx.AuthProxy).
type Fleet struct {
	pools []*Pool
	urls  []string
	now   func() time.Time

	mu        sync.Mutex
	next      int         // round-robin start among equally loaded pools
	downUntil []time.Time // per pool: tried last until then
}

// NewFleet returns a fleet of one pool per URL in remoteURLs, each built
// from cfg with that RemoteURL; with no URL, one pool of cfg as it is (a
// browser launched here, or cfg.RemoteURL).
func NewFleet(cfg Config, remoteURLs []string) (*Fleet, error) {
	f := &Fleet{now: time.Now}
	if len(remoteURLs) == 0 {
		remoteURLs = []string{cfg.RemoteURL}
	}
	for _, u := range remoteURLs {
		c := cfg
		c.RemoteURL = u
		p, err := New(c)
		if err != nil {
			f.Close()
			return nil, err
		}
		f.pools = append(f.pools, p)
		f.urls = append(f.urls, u)
	}
	f.downUntil = make([]time.Time, len(f.pools))
	return f, nil
}

// load is the number of jobs running and waiting on p.
func (p *Pool) load() int { return p.slots.Running() + p.slots.Waiting() }

// order returns the pools' indices in the order a job tries them: the
// ones not resting first, by load, ties taken in turn.
func (f *Fleet) order() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	n := len(f.pools)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = (f.next + i) % n
	}
	f.next = (f.next + 1) % n
	resting := func(i int) bool { return now.Before(f.downUntil[i]) }
	sort.SliceStable(idx, func(a, b int) bool {
		ra, rb := resting(idx[a]), resting(idx[b])
		if ra != rb {
			return rb
		}
		return f.pools[idx[a]].load() < f.pools[idx[b]].load()
	})
	return idx
}

func (f *Fleet) rest(i int) {
	f.mu.Lock()
	f.downUntil[i] = f.now().Add(failedPoolRest)
	f.mu.Unlock()
}

// Do runs fn as one job on one of the browsers (see Pool.Do). When a
// browser cannot be reached or started (*UnavailableError, before fn
// runs), the job goes to the next one; the last such error is returned
// when none could take it.
func (f *Fleet) Do(ctx context.Context, opts JobOptions, fn func(ctx context.Context, j *Job) error) error {
	var err error
	for _, i := range f.order() {
		err = f.pools[i].Do(ctx, opts, fn)
		var unavailable *UnavailableError
		if !errors.As(err, &unavailable) || ctx.Err() != nil {
			return err
		}
		f.rest(i)
	}
	return err
}

// Stream is Pool.Stream over the fleet.
func (f *Fleet) Stream(ctx context.Context, opts JobOptions, fn func(ctx context.Context, j *Job, w io.Writer) error) (io.ReadCloser, error) {
	return stream(ctx, f.Do, opts, fn)
}

// Status reports the fleet as one browser: ready when any browser is,
// busy when every ready one has jobs waiting. With one browser it is
// that browser's status.
func (f *Fleet) Status(ctx context.Context) Status {
	if len(f.pools) == 1 {
		return f.pools[0].Status(ctx)
	}
	out := Status{Busy: true}
	var ready int
	var notes []string
	for i, p := range f.pools {
		st := p.Status(ctx)
		if st.Ready {
			ready++
			out.Busy = out.Busy && st.Busy
		}
		notes = append(notes, fmt.Sprintf("%s: %s", hostOf(f.urls[i]), st.Message))
	}
	out.Ready = ready > 0
	out.Busy = out.Ready && out.Busy
	out.Message = fmt.Sprintf("%d of %d browsers ready (%s)", ready, len(f.pools), strings.Join(notes, "; "))
	return out
}

// hostOf is a browser URL's host, for status messages (a DevTools
// WebSocket path is a secret of sorts).
func hostOf(raw string) string {
	if _, rest, ok := strings.Cut(raw, "://"); ok {
		raw = rest
	}
	host, _, _ := strings.Cut(raw, "/")
	return host
}

// JobTimeout is the deadline a job with opts gets: every pool of the
// fleet has the same Config.
func (f *Fleet) JobTimeout(opts JobOptions) time.Duration { return f.pools[0].JobTimeout(opts) }

// Stats sums the pools' gauges and counters.
func (f *Fleet) Stats() PoolStats {
	var sum PoolStats
	for _, p := range f.pools {
		st := p.Stats()
		sum.Slots += st.Slots
		sum.Running += st.Running
		sum.Waiting += st.Waiting
		sum.Starts += st.Starts
		sum.Crashes += st.Crashes
		sum.Rejected += st.Rejected
	}
	return sum
}

// Close closes every pool, waiting for their jobs.
func (f *Fleet) Close() error {
	var errs []error
	for _, p := range f.pools {
		errs = append(errs, p.Close())
	}
	return errors.Join(errs...)
}
