package lighthouse

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
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

// worker is a Chromium and a Node process running worker.mjs against it.
type worker struct {
	deny    netx.Proxy
	chrome  *browser.Process
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	replies chan reply
	dir     string
	nextID  int

	once sync.Once
	dead chan struct{}
}

type reply struct {
	ID    int             `json:"id"`
	Ready bool            `json:"ready"`
	HTML  string          `json:"html"`
	LHR   json.RawMessage `json:"lhr"`
	Error string          `json:"error"`
}

// startWorker starts Chromium and the Node worker, within ctx: the
// deadline of the audit that needs them (loading Lighthouse takes a few
// seconds, many more on a loaded machine, so no shorter bound of its own).
func startWorker(ctx context.Context, network netx.Network, node, chrome, dir string) (_ *worker, err error) {
	w := &worker{replies: make(chan reply, 1), dead: make(chan struct{})}
	defer func() {
		if err != nil {
			w.kill()
		}
	}()
	if w.deny, err = network.ListenProxy(netx.ProxyOptions{RefuseAll: true}); err != nil {
		return nil, err
	}
	if w.chrome, err = browser.Launch(ctx, browser.LaunchOptions{Path: chrome, ProxyURL: w.deny.URL()}); err != nil {
		return nil, err
	}
	control, err := url.Parse(w.chrome.ControlURL)
	if err != nil {
		return nil, err
	}
	if w.dir, err = os.MkdirTemp("", "sitediag-lighthouse-"); err != nil {
		return nil, err
	}
	script := filepath.Join(w.dir, "worker.mjs")
	if err := os.WriteFile(script, workerJS, 0o600); err != nil {
		return nil, err
	}
	w.cmd = exec.Command(node, script, dir, "http://"+control.Host)
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
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
		if w.chrome != nil {
			w.chrome.Close()
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
	ID     int            `json:"id"`
	URL    string         `json:"url"`
	Proxy  string         `json:"proxy"`
	Preset string         `json:"preset"`
	Flags  map[string]any `json:"flags"`
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
