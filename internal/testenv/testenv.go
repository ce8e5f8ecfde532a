// Package testenv decides what tests may skip. On a workstation a test
// that needs root, Chromium or Lighthouse skips with its reason; in CI
// (SITEDIAG_CI=1) the same test fails instead, so nothing is reported as
// passing that did not run.
package testenv

import (
	"os"
	"testing"
)

// CI reports whether the tests run in CI (SITEDIAG_CI=1).
func CI() bool { return os.Getenv("SITEDIAG_CI") == "1" }

// Need skips t with reason when ok is false, or fails it in CI.
func Need(t testing.TB, ok bool, reason string) {
	t.Helper()
	if ok {
		return
	}
	if CI() {
		t.Fatalf("SITEDIAG_CI=1 and this test cannot run: %s", reason)
	}
	t.Skipf("skipping: %s (set up the machine with `make setup`; fails instead when SITEDIAG_CI=1)", reason)
}

// NeedRoot needs the effective user to be root.
func NeedRoot(t testing.TB) {
	t.Helper()
	Need(t, os.Geteuid() == 0, "needs root (raw sockets, network namespaces)")
}
