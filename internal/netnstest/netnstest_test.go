package netnstest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

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
