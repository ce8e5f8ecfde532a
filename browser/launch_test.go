package browser

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// heldPort listens on a free loopback port for the test, as another
// process holding leakless's lock would.
func heldPort(t *testing.T) (port int, release func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port, func() { ln.Close() }
}

func TestLockPortHonoursContext(t *testing.T) {
	port, _ := heldPort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		unlock, err := lockPort(ctx, port, time.Hour)
		if err == nil {
			unlock()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v, want context.DeadlineExceeded", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("lockPort kept waiting for a held port after its context ended")
	}
}

func TestLockPortGivesUpAfterItsWait(t *testing.T) {
	port, _ := heldPort(t)
	unlock, err := lockPort(context.Background(), port, 50*time.Millisecond)
	if err != nil {
		t.Fatalf("got %v, want the lock given up on without an error", err)
	}
	unlock()
}

func TestLockPortTakesAFreedPort(t *testing.T) {
	port, release := heldPort(t)
	time.AfterFunc(50*time.Millisecond, release)
	unlock, err := lockPort(context.Background(), port, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	// While held, the port is taken.
	if ln, err := net.Listen("tcp", (&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}).String()); err == nil {
		ln.Close()
		t.Fatal("the lock's port could be listened on while the lock was held")
	}
}

// A browser that ends, closed or killed, leaves nothing in TMPDIR:
// Chromium's own temporary folders (its singleton socket's,
// org.chromium.Chromium.*) are made inside the launch's folder, which
// goes with it. #30's soak found one left per browser.
func TestLaunchLeavesNothingInTMPDIR(t *testing.T) {
	needChromium(t)
	path, err := Find(os.Getenv("SITEDIAG_CHROME_PATH"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for _, kill := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		p, err := Launch(ctx, LaunchOptions{Path: path, ProxyURL: "http://127.0.0.1:9"})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if kill { // as a crash, or an operator's kill -9, would end it
			syscall.Kill(p.PID(), syscall.SIGKILL)
			<-p.Exited()
		}
		p.Close()
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "leakless-") { // leakless's binary, extracted once per machine
			t.Errorf("left in TMPDIR: %s", e.Name())
		}
	}
}
