package main

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/exampletest"
)

// TestLibraryRun runs the example against a local page. Its zero Config
// keeps the full SSRF policy, so loopback is refused, and the example
// reports that documented error and exits 1.
func TestLibraryRun(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	p := exampletest.Start(t, exampletest.Build(t), nil, srv.URL)
	p.WaitFor(t, regexp.MustCompile(`^refused: the target is on a network this client may not reach$`), 30*time.Second)
	if code := p.Exit(t, 30*time.Second); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
}
