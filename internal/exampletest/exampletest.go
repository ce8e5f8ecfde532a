// Package exampletest builds and runs the commands under examples/ from
// their tests, as a user would run them, and says whether the tools a
// command's browser work needs are installed.
package exampletest

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/internal/testenv"
	"github.com/sitediag/sitediag/lighthouse"
)

// Build compiles the command in the test's working directory and
// returns the binary's path.
func Build(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cmd")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// Chromium returns the Chromium binary (SITEDIAG_CHROME_PATH, else the
// first on PATH). Without one the test skips, or fails under
// SITEDIAG_CI=1.
func Chromium(t testing.TB) string {
	t.Helper()
	chrome, err := browser.Find(os.Getenv("SITEDIAG_CHROME_PATH"))
	testenv.Need(t, err == nil, "needs Chromium (apt-get install chromium)")
	return chrome
}

// Lighthouse returns the Chromium binary when node, Chromium and the
// Lighthouse that make setup installs are all there. Without them the
// test skips, or fails under SITEDIAG_CI=1.
func Lighthouse(t testing.TB) (chrome string) {
	t.Helper()
	_, errNode := exec.LookPath("node")
	chrome, errChrome := browser.Find(os.Getenv("SITEDIAG_CHROME_PATH"))
	_, errLighthouse := lighthouse.FindDir("")
	testenv.Need(t, errNode == nil && errChrome == nil && errLighthouse == nil, "needs node, Chromium and Lighthouse (make setup)")
	return chrome
}

// Process is a running command whose stdout and stderr are read line by
// line. Every line is kept, so a chatty process never blocks on a full
// pipe, however long it runs and whether or not anyone waits for its
// lines.
type Process struct {
	Cmd *exec.Cmd

	mu    sync.Mutex
	lines []string
	ended bool          // both pipes reached EOF
	more  chan struct{} // closed and replaced when a line comes or output ends
	next  int           // the first line WaitFor has not looked at
}

// Start runs bin with args, env added to the test's environment. The
// process is killed when the test ends, if it is still running.
func Start(t testing.TB, bin string, env []string, args ...string) *Process {
	t.Helper()
	return StartIn(t, "", bin, env, args...)
}

// StartIn is Start in the working directory dir ("" is the test's).
func StartIn(t testing.TB, dir, bin string, env []string, args ...string) *Process {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Process{Cmd: cmd, more: make(chan struct{})}
	var read sync.WaitGroup
	for _, r := range []io.Reader{stdout, stderr} {
		read.Go(func() {
			sc := bufio.NewScanner(r)
			for sc.Scan() {
				p.add(sc.Text())
			}
		})
	}
	go func() {
		read.Wait()
		p.mu.Lock()
		p.ended = true
		p.wake()
		p.mu.Unlock()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return p
}

func (p *Process) add(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines = append(p.lines, line)
	p.wake()
}

// wake tells the waiters that something changed. p.mu is held.
func (p *Process) wake() {
	close(p.more)
	p.more = make(chan struct{})
}

// WaitFor returns the submatches of the first output line matching re
// after the lines earlier calls looked at; the test fails when none comes
// within timeout or the output ends.
func (p *Process) WaitFor(t testing.TB, re *regexp.Regexp, timeout time.Duration) []string {
	t.Helper()
	return p.wait(t, re, timeout, &p.next)
}

// WaitForAny is WaitFor over every line of output, whatever earlier calls
// looked at: for a line of one stream (stdout) whose order against the
// other's (stderr) lines is not fixed.
func (p *Process) WaitForAny(t testing.TB, re *regexp.Regexp, timeout time.Duration) []string {
	t.Helper()
	var from int
	return p.wait(t, re, timeout, &from)
}

// wait returns the submatches of the first line from *next on matching
// re, and moves *next past it.
func (p *Process) wait(t testing.TB, re *regexp.Regexp, timeout time.Duration, next *int) []string {
	t.Helper()
	deadline := time.After(timeout)
	for {
		p.mu.Lock()
		for ; *next < len(p.lines); *next++ {
			if m := re.FindStringSubmatch(p.lines[*next]); m != nil {
				*next++
				p.mu.Unlock()
				return m
			}
		}
		ended, more := p.ended, p.more
		p.mu.Unlock()
		if ended {
			t.Fatalf("%s: output ended without a line matching %s", p.Cmd.Path, re)
		}
		select {
		case <-more:
		case <-deadline:
			t.Fatalf("%s: no line matching %s within %v", p.Cmd.Path, re, timeout)
		}
	}
}

// Exit waits for the process to end by itself and returns its exit code;
// the test fails after timeout.
func (p *Process) Exit(t testing.TB, timeout time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.Cmd.Wait() }()
	select {
	case <-done:
		return p.Cmd.ProcessState.ExitCode()
	case <-time.After(timeout):
		t.Fatalf("%s did not exit within %v", p.Cmd.Path, timeout)
		return -1
	}
}

// Stop sends SIGTERM and fails the test unless the process exits cleanly
// within timeout.
func (p *Process) Stop(t testing.TB, timeout time.Duration) {
	t.Helper()
	p.Cmd.Process.Signal(syscall.SIGTERM)
	if code := p.Exit(t, timeout); code != 0 {
		t.Fatalf("%s exited with %d after SIGTERM", p.Cmd.Path, code)
	}
}

// Get sends a GET to url, with key as x-api-key unless it is empty, and
// returns the status and the body.
func Get(t testing.TB, url, key string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	resp, body := Do(t, req)
	return resp.StatusCode, body
}

// Do sends req with the default client and returns the response, its
// body read and closed, and the body.
func Do(t testing.TB, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}
