// Package exampletest builds and runs the commands under examples/ from
// their tests, as a user would run them.
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
	"testing"
	"time"
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

// Process is a running command whose stdout and stderr are read line by
// line.
type Process struct {
	Cmd   *exec.Cmd
	lines chan string
	read  sync.WaitGroup
}

// Start runs bin with args, env added to the test's environment. The
// process is killed when the test ends, if it is still running.
func Start(t testing.TB, bin string, env []string, args ...string) *Process {
	t.Helper()
	cmd := exec.Command(bin, args...)
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
	p := &Process{Cmd: cmd, lines: make(chan string, 256)}
	for _, r := range []io.Reader{stdout, stderr} {
		p.read.Go(func() {
			sc := bufio.NewScanner(r)
			for sc.Scan() {
				p.lines <- sc.Text()
			}
		})
	}
	go func() {
		p.read.Wait()
		close(p.lines)
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return p
}

// WaitFor returns the submatches of the first output line matching re;
// the test fails when none comes within timeout or the output ends.
func (p *Process) WaitFor(t testing.TB, re *regexp.Regexp, timeout time.Duration) []string {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatalf("%s: output ended without a line matching %s", p.Cmd.Path, re)
			}
			if m := re.FindStringSubmatch(line); m != nil {
				return m
			}
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
	go func() {
		for range p.lines { // drain, so the process never blocks on a full pipe
		}
		done <- p.Cmd.Wait()
	}()
	select {
	case <-done:
		return p.Cmd.ProcessState.ExitCode()
	case <-time.After(timeout):
		t.Fatalf("%s did not exit within %v", p.Cmd.Path, timeout)
		return -1
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
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}
