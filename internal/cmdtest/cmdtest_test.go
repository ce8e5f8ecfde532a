package cmdtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/cmdtest"
)

// Output stops a program still running (without the kill it would wait
// the minute out, and the test time out) and returns both its streams.
func TestOutput(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	written := filepath.Join(t.TempDir(), "written")
	p := cmdtest.Start(t, "sh", "-c", `echo out; echo err >&2; touch "$0"; exec sleep 60`, written)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(written); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sh did not run in 30 s: %q", p.Output())
		}
	}
	if got := p.Output(); got != "out\nerr\n" {
		t.Errorf("got %q, want out and err", got)
	}
}
