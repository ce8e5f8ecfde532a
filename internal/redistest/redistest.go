// Package redistest starts Debian's redis-server for a test, on a free
// loopback port of its own, with nothing persisted.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/porttest"
	"github.com/sitediag/sitediag/internal/testenv"
)

// Server is a running redis-server. Start gives one; it is stopped when
// the test ends.
type Server struct {
	// Addr is 127.0.0.1:port.
	Addr string
	cmd  *exec.Cmd
	once sync.Once
}

// URL is the server's redis:// URL, as SITEDIAG_REDIS_URL takes it.
func (s *Server) URL() string { return "redis://" + s.Addr + "/0" }

// Start runs redis-server on a free 127.0.0.1 port and waits until it
// answers PING. Without redis-server on PATH the test skips (fails in
// CI).
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	testenv.Need(t, err == nil, "redis-server is not installed (apt-get install redis-server)")
	return porttest.Retry(t, func() (*Server, error) { return start(t, bin) }, (*Server).Kill)
}

func start(t testing.TB, bin string) (*Server, error) {
	port := int(porttest.Closed(t))
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port),
		"--save", "", "--appendonly", "no", "--dir", t.TempDir(), "--protected-mode", "yes")
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), cmd: cmd}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if ping(s.Addr) == nil {
			return s, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Kill()
	return nil, fmt.Errorf("redis-server on %s did not answer PING in 10 s", s.Addr)
}

// Kill stops the server at once (SIGKILL), as a crash would, and waits
// for it. It may be called more than once.
func (s *Server) Kill() {
	s.once.Do(func() {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	})
}

// ping sends an inline PING and wants +PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}
