package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"github.com/sitediag/sitediag/internal/guardnet"
	"github.com/sitediag/sitediag/internal/porttest"
	"github.com/sitediag/sitediag/internal/procs"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/netx"
)

// instanceOf returns the browser a job runs on.
func instanceOf(j *Job) *instance { return j.inst }

// waitFor polls cond for up to d.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}

// leftovers describes what a closed browser left: live processes, child
// processes of this one, its temporary directory.
func leftovers(browsers []*Process) string {
	var out []string
	for _, p := range browsers {
		if pids := processesOf(p); len(pids) > 0 {
			out = append(out, "live processes")
		}
		if _, err := os.Stat(p.dir); err == nil {
			out = append(out, "temporary directory "+p.dir)
		}
	}
	if kids := procs.ChildrenOf(os.Getpid()); len(kids) > 0 {
		out = append(out, "child processes")
	}
	return strings.Join(out, ", ")
}

func TestBrowserCrashMidJob(t *testing.T) {
	e := newEnv(t, Config{})
	arrived := make(chan struct{}, 1)
	hang := e.site.handle("/hang", func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})
	ok := e.site.page("/ok", `<!doctype html><body style="background:#0f0">`)
	var procs []*Process
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	err := e.pool.Do(ctx, JobOptions{}, func(ctx context.Context, j *Job) error {
		procs = append(procs, instanceOf(j).proc)
		go func() {
			<-arrived
			syscall.Kill(instanceOf(j).proc.PID(), syscall.SIGKILL)
		}()
		_, err := j.Load(ctx, hang, LoadOptions{})
		return err
	})
	if !errors.Is(err, ErrCrashed) {
		t.Fatalf("the job whose browser was killed returned %v, want ErrCrashed", err)
	}
	e.do(t, JobOptions{}, func(ctx context.Context, j *Job) error {
		procs = append(procs, instanceOf(j).proc)
		if _, err := j.Load(ctx, ok, LoadOptions{}); err != nil {
			return err
		}
		_, err := j.Screenshot(ctx, ShotOptions{})
		return err
	})
	if procs[0] == procs[1] {
		t.Error("the next job ran on the killed browser")
	}
	if st := e.pool.Stats(); st.Starts != 2 || st.Crashes != 1 {
		t.Errorf("Stats() = %+v, want 2 starts and 1 crash", st)
	}
	e.pool.Close()
	if left := leftovers(procs); left != "" {
		t.Errorf("after Close: %s", left)
	}
}

func TestPageCrashRetiresTheBrowser(t *testing.T) {
	e := newEnv(t, Config{})
	ok := e.site.page("/ok", `<!doctype html><body>`)
	var first, second *instance
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	err := e.pool.Do(ctx, JobOptions{}, func(ctx context.Context, j *Job) error {
		first = instanceOf(j)
		if _, err := j.Load(ctx, ok, LoadOptions{}); err != nil {
			return err
		}
		proto.PageCrash{}.Call(j.Page(ctx))
		<-ctx.Done()
		return ctx.Err()
	})
	if !errors.Is(err, ErrCrashed) {
		t.Fatalf("the job whose page crashed returned %v, want ErrCrashed", err)
	}
	e.do(t, JobOptions{}, func(ctx context.Context, j *Job) error {
		second = instanceOf(j)
		_, err := j.Load(ctx, ok, LoadOptions{})
		return err
	})
	if first == second {
		t.Error("the browser was not replaced after a page crashed")
	}
}

func TestManyJobsLeaveNothingBehind(t *testing.T) {
	e := newEnv(t, Config{RestartAfter: 10})
	page := e.site.page("/p", `<!doctype html><body><p>hello</p>`)
	before := runtime.NumGoroutine()
	seen := map[*Process]bool{}
	var procs []*Process
	for range 30 {
		e.do(t, JobOptions{}, func(ctx context.Context, j *Job) error {
			if p := instanceOf(j).proc; !seen[p] {
				seen[p] = true
				procs = append(procs, p)
			}
			if _, err := j.Load(ctx, page, LoadOptions{}); err != nil {
				return err
			}
			_, err := j.Screenshot(ctx, ShotOptions{})
			return err
		})
	}
	if len(procs) != 3 {
		t.Errorf("30 jobs with RestartAfter 10 ran on %d browsers, want 3", len(procs))
	}
	if err := e.pool.Close(); err != nil {
		t.Fatal(err)
	}
	if left := leftovers(procs); left != "" {
		t.Errorf("after Close: %s", left)
	}
	if !waitFor(10*time.Second, func() bool { return runtime.NumGoroutine() <= before }) {
		var b strings.Builder
		pprof.Lookup("goroutine").WriteTo(&b, 1)
		t.Errorf("%d goroutines after Close, %d before the jobs:\n%s", runtime.NumGoroutine(), before, b.String())
	}
}

func TestStrangerPagesAreClosed(t *testing.T) {
	e := newEnv(t, Config{})
	page := e.site.page("/p", `<!doctype html><body>`)
	e.do(t, JobOptions{}, func(ctx context.Context, j *Job) error {
		if _, err := j.Load(ctx, page, LoadOptions{}); err != nil {
			return err
		}
		rb := instanceOf(j).rb.Context(ctx)
		extra, err := proto.TargetCreateTarget{URL: "about:blank", BrowserContextID: j.contextID}.Call(rb)
		if err != nil {
			return err
		}
		gone := waitFor(10*time.Second, func() bool {
			list, err := proto.TargetGetTargets{}.Call(rb)
			if err != nil {
				return false
			}
			for _, ti := range list.TargetInfos {
				if ti.TargetID == extra.TargetID {
					return false
				}
			}
			return true
		})
		if !gone {
			t.Error("a page opened in the job's context outside the job was not closed")
		}
		return nil
	})
}

func TestBusyWhenTheQueueIsFull(t *testing.T) {
	e := newEnv(t, Config{MaxJobs: 1, MaxQueue: 1})
	page := e.site.page("/p", `<!doctype html><body>`)
	hold := make(chan struct{})
	running := make(chan struct{})
	done := make(chan error, 2)
	go func() {
		done <- e.pool.Do(t.Context(), JobOptions{}, func(ctx context.Context, j *Job) error {
			close(running)
			<-hold
			return nil
		})
	}()
	<-running
	go func() {
		done <- e.pool.Do(t.Context(), JobOptions{}, func(ctx context.Context, j *Job) error {
			_, err := j.Load(ctx, page, LoadOptions{})
			return err
		})
	}()
	if !waitFor(10*time.Second, func() bool { return e.pool.slots.Waiting() == 1 }) {
		t.Fatal("the second job never queued")
	}
	err := e.pool.Do(t.Context(), JobOptions{}, func(context.Context, *Job) error { return nil })
	var busy *BusyError
	if !errors.As(err, &busy) || busy.RetryAfter < time.Second {
		t.Errorf("third job: got %v, want a *BusyError with RetryAfter of at least 1s", err)
	}
	if st := e.pool.Status(t.Context()); !st.Ready || !st.Busy {
		t.Errorf("status with a full queue is %+v, want ready and busy", st)
	}
	close(hold)
	for range 2 {
		if err := <-done; err != nil {
			t.Errorf("held or queued job: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Millisecond)
	defer cancel()
	<-ctx.Done()
	if err := e.pool.Do(ctx, JobOptions{}, func(context.Context, *Job) error { return nil }); err == nil {
		t.Error("a job with an expired context ran")
	}
}

// A job answers before its page is closed; the next job of a caller
// that runs them one after another waits for that slot, even with no
// queue, rather than being told the pool is busy.
func TestBackToBackJobsWithoutAQueue(t *testing.T) {
	e := newEnv(t, Config{MaxJobs: 1, MaxQueue: -1})
	page := e.site.page("/p", `<!doctype html><body>`)
	for i := range 5 {
		err := e.pool.Do(t.Context(), JobOptions{}, func(ctx context.Context, j *Job) error {
			_, err := j.Load(ctx, page, LoadOptions{})
			return err
		})
		if err != nil {
			t.Fatalf("job %d: %v", i, err)
		}
	}
}

// launchRemote starts a Chromium of its own, as an operator would start a
// remote browser, and returns it with its http://host:port.
func launchRemote(t *testing.T, e *env) (*Process, string) {
	t.Helper()
	deny, err := e.pool.cfg.Network.ListenProxy(netx.ProxyOptions{RefuseAll: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deny.Close() })
	path, _ := Find(os.Getenv("SITEDIAG_CHROME_PATH"))
	proc, err := Launch(t.Context(), LaunchOptions{Path: path, ProxyURL: deny.URL()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Close() })
	u, _ := url.Parse(proc.ControlURL)
	return proc, "http://" + u.Host
}

func TestRemoteBrowser(t *testing.T) {
	e := newEnv(t, Config{})
	proc, remoteURL := launchRemote(t, e)
	remote, err := New(Config{Network: e.pool.cfg.Network, RemoteURL: remoteURL})
	if err != nil {
		t.Fatal(err)
	}
	if st := remote.Status(t.Context()); !st.Ready {
		t.Errorf("status before the first job: %+v, want ready", st)
	}
	page := e.site.page("/remote", `<!doctype html><body style="background:#0f0">`)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	err = remote.Do(ctx, JobOptions{}, func(ctx context.Context, j *Job) error {
		if _, err := j.Load(ctx, page, LoadOptions{}); err != nil {
			return err
		}
		shot, err := j.Screenshot(ctx, ShotOptions{})
		if err == nil {
			wantSize(t, decode(t, shot.Data, "png"), 1366, 768)
		}
		return err
	})
	if err != nil {
		t.Fatalf("job on the remote browser: %v", err)
	}
	remote.Close()
	select {
	case <-proc.Exited():
		t.Error("closing the pool stopped the remote browser")
	case <-time.After(500 * time.Millisecond):
	}
}

func TestMissingChromium(t *testing.T) {
	g := guardnet.Network(guard.New(nil, guard.NewPolicy([]netip.Prefix{})))
	pool, err := New(Config{Network: g, Path: "/nonexistent/chromium"})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	err = pool.Do(t.Context(), JobOptions{}, func(context.Context, *Job) error { return nil })
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("got %v, want ErrNotFound", err)
	}
	if st := pool.Status(t.Context()); st.Ready || !strings.Contains(st.Message, "not found") {
		t.Errorf("status is %+v, want not ready, Chromium not found", st)
	}
}

func TestChallengeWait(t *testing.T) {
	e := newEnv(t, Config{})
	real := e.site.page("/real", `<!doctype html><title>Welcome</title><body>`)
	challenge := e.site.page("/challenge", `<!doctype html><title>Just a moment...</title>
<body><div id="challenge-running"></div><script>setTimeout(() => location.replace('/real'), 2000)</script>`)
	v, _, err := e.load(t, challenge, LoadOptions{SkipCaptcha: true})
	if err != nil {
		t.Fatal(err)
	}
	if v.URL != real || v.Challenge != "cloudflare" || !v.ChallengeCleared {
		t.Errorf("visit %+v, want %s after a cleared cloudflare challenge", v, real)
	}
}

// A remote browser that takes the connection but never answers must not
// hold a job past its JobTimeout, whatever the caller's context: the
// deadline covers starting the browser, and the WebSocket handshake.
func TestSilentRemoteBrowserTimesOut(t *testing.T) {
	hold := make(chan struct{})
	silent := porttest.Listen(t, func(net.Conn) { <-hold }) // reads nothing, answers nothing
	t.Cleanup(func() { close(hold) })
	g := guardnet.Network(guard.New(nil, guard.NewPolicy([]netip.Prefix{})))
	remote := fmt.Sprintf("ws://127.0.0.1:%d/devtools/browser/x", silent.Port)
	pool, err := New(Config{Network: g, RemoteURL: remote, JobTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- pool.Do(context.Background(), JobOptions{}, func(context.Context, *Job) error { return nil })
	}()
	// Close waits for the job, so it is called only once the job ended.
	select {
	case err := <-done:
		var unavailable *UnavailableError
		if !errors.As(err, &unavailable) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("got %v, want an *UnavailableError wrapping context.DeadlineExceeded", err)
		}
		pool.Close()
	case <-time.After(30 * time.Second):
		t.Fatal("the job still waits for a silent remote browser long after its JobTimeout")
	}
}

// A start cut short because the caller went away says nothing about the
// browser: the pool stays ready.
func TestCancelledStartKeepsThePoolReady(t *testing.T) {
	needChromium(t)
	g := guardnet.Network(guard.New(nil, guard.NewPolicy([]netip.Prefix{})))
	pool, err := New(Config{Network: g, Path: os.Getenv("SITEDIAG_CHROME_PATH")})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(20*time.Millisecond, cancel)
	err = pool.Do(ctx, JobOptions{}, func(context.Context, *Job) error { return nil })
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if st := pool.Status(t.Context()); !st.Ready {
		t.Errorf("status after a cancelled start is %+v, want ready", st)
	}
}

// The Retry-After of a full pool counts the running jobs and the queue,
// not the last job alone.
func TestRetryAfterCountsTheQueue(t *testing.T) {
	p, err := New(Config{Network: guardnet.Network(nil), MaxJobs: 2, MaxQueue: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.avgJob = 3 * time.Second
	for range 2 {
		if err := p.slots.Acquire(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
	}
	queued, unqueue := context.WithCancel(t.Context())
	defer unqueue()
	for range 10 {
		go p.slots.Acquire(queued, nil)
	}
	if !waitFor(10*time.Second, func() bool { return p.slots.Waiting() == 10 }) {
		t.Fatal("the queue never filled")
	}
	err = p.acquire(t.Context())
	var busy *BusyError
	if !errors.As(err, &busy) || busy.RetryAfter != 18*time.Second {
		t.Fatalf("acquire on a full pool: %v, want busy with RetryAfter 18s", err)
	}
	if got, want := p.Stats(), (PoolStats{Slots: 2, Running: 2, Waiting: 10, Rejected: 1}); got != want {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
}

// The spare page a job adopts was opened ahead, emulated as the default
// device and warmed up: the job finds it blank, at the desktop viewport,
// having fetched nothing, and its scripts' results are its own.
func TestSparePageIsReadyAndBlank(t *testing.T) {
	e := newEnv(t, Config{})
	var in *instance
	e.do(t, JobOptions{}, func(_ context.Context, j *Job) error {
		in = instanceOf(j)
		return nil
	})
	var spare *Job
	if !waitFor(30*time.Second, func() bool {
		in.spareMu.Lock()
		defer in.spareMu.Unlock()
		spare = in.spare
		return spare != nil
	}) {
		t.Fatal("no spare page was prepared")
	}
	e.do(t, JobOptions{}, func(ctx context.Context, j *Job) error {
		if j != spare {
			t.Error("the job did not adopt the spare page")
		}
		got, err := j.Eval(ctx, `() => [document.body ? document.body.innerHTML : '', innerWidth, innerHeight, location.href].join(' ')`)
		if err != nil {
			return err
		}
		if want := `" 1366 768 about:blank"`; string(got) != want {
			t.Errorf("spare page: %s, want %s", got, want)
		}
		if reqs := j.Requests(); len(reqs) != 0 {
			t.Errorf("spare page requested %v, want nothing", reqs)
		}
		return nil
	})
}
