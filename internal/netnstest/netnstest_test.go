//go:build linux

package netnstest

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/porttest"
	"github.com/sitediag/sitediag/internal/testenv"
)

// TestSweepStale: a namespace named for a process that has exited is
// deleted; one named for a live process is kept.
func TestSweepStale(t *testing.T) {
	testenv.NeedRoot(t)
	_, err := exec.LookPath("ip")
	testenv.Need(t, err == nil, "needs the ip command (iproute2)")
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	stale := fmt.Sprintf("sdt-%d-abcdef-c", gone.Process.Pid)
	live := fmt.Sprintf("sdt-%d-abcdef-t", os.Getppid())
	for _, ns := range []string{stale, live} {
		run(t, "ip", "netns", "add", ns)
		t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	}
	sweepStale(t)
	names := run(t, "ip", "netns", "list")
	if strings.Contains(names, stale) {
		t.Errorf("%s (exited process) was kept", stale)
	}
	if !strings.Contains(names, live) {
		t.Errorf("%s (live process) was deleted", live)
	}
}

// TestPeer: the peer reaches the test's namespace at Host and nothing
// on its loopback, and Forward joins the peer's address to a service on
// the peer's own loopback.
func TestPeer(t *testing.T) {
	p := NewPeer(t)
	ln := porttest.ListenOn(t, p.Host.String(), func(c net.Conn) { io.WriteString(c, "host\n") })
	script := fmt.Sprintf("exec 3<>/dev/tcp/%s/%d && cat <&3", p.Host, ln.Port)
	if out := run(t, "ip", "netns", "exec", p.NS, "bash", "-c", script); out != "host\n" {
		t.Errorf("the peer read %q from the host's side, want host", out)
	}
	fwd := p.Forward(t, serveInNamespace(t, p.NS, "peer\n"))
	c, err := net.DialTimeout("tcp", fwd.String(), 5*time.Second)
	if err != nil {
		t.Fatalf("dialling the forwarded port %s: %v", fwd, err)
	}
	defer c.Close()
	got, _ := io.ReadAll(c)
	if string(got) != "peer\n" {
		t.Errorf("read %q through Forward, want the peer's loopback service", got)
	}
}

// serveInNamespace answers every connection to 127.0.0.1 inside ns with
// text, until t ends, and returns the port.
func serveInNamespace(t *testing.T, ns, text string) int {
	t.Helper()
	ln := listenIn(t, ns, "127.0.0.1:0", func(ln net.Listener) {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, text)
			c.Close()
		}
	})
	return ln.Addr().(*net.TCPAddr).Port
}
