// Package cmdtest runs the programs tests check against (openssl
// s_server, gnutls-serv, named) for as long as the test runs.
package cmdtest

import (
	"bytes"
	"os/exec"
	"sync"
	"testing"
)

// Program is a program a test started.
type Program struct {
	cmd  *exec.Cmd
	out  bytes.Buffer
	once sync.Once
}

// Start runs name with args until the test ends (or Output), when it is
// killed and waited for.
func Start(t testing.TB, name string, args ...string) *Program {
	t.Helper()
	p := &Program{cmd: exec.Command(name, args...)}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.stop)
	return p
}

// Output stops the program and returns all it wrote to stdout and
// stderr, for a failure message.
func (p *Program) Output() string {
	p.stop()
	return p.out.String()
}

// stop kills the program, if it still runs, and waits for it.
func (p *Program) stop() {
	p.once.Do(func() {
		p.cmd.Process.Kill()
		p.cmd.Wait()
	})
}
