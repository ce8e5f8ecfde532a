package lighthouse

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/net/netx"
)

// maxReply bounds one reply line (two reports of a big page).
const maxReply = 64 << 20

// worker is a Node process running worker.mjs, and the Chromium each
// audit runs in. Every audit gets a Chromium of its own, as the
// Lighthouse CLI does: a browser keeps state across its contexts that
// changes what the next audit sees (a favicon that failed to load is not
// requested again, so its console error, and the best-practices score,
// would differ from the first audit's). The next audit's Chromium is
// launched while nothing waits for it, right after the previous audit
// (see prelaunch).
type worker struct {
	deny    netx.Proxy
	chrome  string // the binary
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	replies chan reply
	dir     string
	nextID  int

	// next is the launch of the next audit's Chromium.
	mu   sync.Mutex
	next *launch

	once sync.Once
	dead chan struct{}
	// stop ends launches under way when the worker is killed.
	stop context.CancelFunc
	ctx  context.Context
}

// launch is a Chromium being started; done is closed when proc or err
// is set.
type launch struct {
	done chan struct{}
	proc *browser.Process
	err  error
}

type reply struct {
	ID    int             `json:"id"`
	Ready bool            `json:"ready"`
	HTML  string          `json:"html"`
	LHR   json.RawMessage `json:"lhr"`
	Error string          `json:"error"`
}

// startWorker starts the Node worker and the first audit's Chromium,
// within ctx: the deadline of the audit that needs them (loading
// Lighthouse takes a few seconds, many more on a loaded machine, so no
// shorter bound of its own).
func startWorker(ctx context.Context, network netx.Network, node, chrome, dir string) (_ *worker, err error) {
	w := &worker{replies: make(chan reply, 1), dead: make(chan struct{}), chrome: chrome}
	w.ctx, w.stop = context.WithCancel(context.Background())
	defer func() {
		if err != nil {
			w.kill()
		}
	}()
	if w.deny, err = network.ListenProxy(netx.ProxyOptions{RefuseAll: true}); err != nil {
		return nil, err
	}
	w.prelaunch()
	if w.dir, err = os.MkdirTemp("", "sitediag-lighthouse-"); err != nil {
		return nil, err
	}
	script := filepath.Join(w.dir, "worker.mjs")
	if err := os.WriteFile(script, workerJS, 0o600); err != nil {
		return nil, err
	}
	w.cmd = exec.Command(node, script, dir)
	w.cmd.SysProcAttr = workerAttr()
	w.cmd.Stderr = os.Stderr
	stdout, err := w.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if w.stdin, err = w.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := w.cmd.Start(); err != nil {
		return nil, err
	}
	go w.read(stdout)
	select {
	case r, ok := <-w.replies:
		if !ok || !r.Ready {
			return nil, errors.New("the Lighthouse worker exited while starting")
		}
	case <-ctx.Done():
		return nil, fmt.Errorf("the Lighthouse worker did not start: %w", ctx.Err())
	}
	return w, nil
}

// prelaunch starts launching the next audit's Chromium, when nothing
// waits: with the worker, and after each audit (so that the launch does
// not take CPU from an audit under way).
func (w *worker) prelaunch() {
	l := w.launch()
	w.mu.Lock()
	w.next = l
	w.mu.Unlock()
}

// launch starts a Chromium (its browser-wide proxy refuses everything;
// each audit's context has its own).
func (w *worker) launch() *launch {
	l := &launch{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.proc, l.err = browser.Launch(w.ctx, browser.LaunchOptions{Path: w.chrome, ProxyURL: w.deny.URL()})
		if l.err == nil && w.ctx.Err() != nil { // killed meanwhile
			l.proc.Close()
			l.proc, l.err = nil, w.ctx.Err()
		}
	}()
	return l
}

// browser takes the Chromium prelaunched for this audit (or launches
// one), waiting for it within ctx; a launch that failed is tried once
// more. The caller closes the Chromium after the audit and then calls
// prelaunch.
func (w *worker) browser(ctx context.Context) (*browser.Process, error) {
	w.mu.Lock()
	l := w.next
	w.next = nil
	w.mu.Unlock()
	for attempt := 0; ; attempt++ {
		if l == nil {
			l = w.launch()
		}
		select {
		case <-l.done:
		case <-ctx.Done():
			go func() {
				<-l.done
				if l.proc != nil {
					l.proc.Close()
				}
			}()
			return nil, ctx.Err()
		}
		if l.err == nil || attempt == 1 {
			return l.proc, l.err
		}
		l = nil
	}
}

// read passes the worker's replies on until its stdout ends, then marks
// it dead.
func (w *worker) read(stdout io.Reader) {
	defer close(w.replies)
	defer w.kill()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), maxReply)
	for sc.Scan() {
		var r reply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			continue
		}
		w.replies <- r
	}
}

func (w *worker) alive() bool {
	select {
	case <-w.dead:
		return false
	default:
		return true
	}
}

// kill ends the Node process group and Chromium, and removes the
// worker's files. It is safe to call more than once.
func (w *worker) kill() {
	w.once.Do(func() {
		close(w.dead)
		if w.cmd != nil && w.cmd.Process != nil {
			syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
			go w.cmd.Wait()
		}
		if w.stop != nil {
			w.stop()
		}
		w.mu.Lock()
		l := w.next
		w.mu.Unlock()
		if l != nil {
			go func() {
				<-l.done
				if l.proc != nil {
					l.proc.Close()
				}
			}()
		}
		if w.deny != nil {
			w.deny.Close()
		}
		if w.dir != "" {
			os.RemoveAll(w.dir)
		}
	})
}

// request is one audit for the worker.
type request struct {
	ID int `json:"id"`
	// Browser is the DevTools HTTP endpoint of the audit's Chromium.
	Browser string         `json:"browser"`
	URL     string         `json:"url"`
	Proxy   string         `json:"proxy"`
	Preset  string         `json:"preset"`
	Flags   map[string]any `json:"flags"`
}

// run sends req and waits for its reply, ctx's end or the worker's.
func (w *worker) run(ctx context.Context, req request) (reply, error) {
	w.nextID++
	req.ID = w.nextID
	line, err := json.Marshal(req)
	if err != nil {
		return reply{}, err
	}
	if _, err := w.stdin.Write(append(line, '\n')); err != nil {
		return reply{}, fmt.Errorf("%w: %w", ErrWorkerDied, err)
	}
	for {
		select {
		case r, ok := <-w.replies:
			if !ok {
				return reply{}, ErrWorkerDied
			}
			if r.ID == req.ID {
				return r, nil
			}
		case <-ctx.Done():
			return reply{}, ctx.Err()
		}
	}
}

// ErrWorkerDied means the worker process ended during an audit.
var ErrWorkerDied = errors.New("lighthouse: the worker died during the audit")
