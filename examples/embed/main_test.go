package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/exampletest"
)

// TestEmbedRun runs the example as its doc comment says, with a comma
// list of keys: the application's page and the mounted API both answer.
func TestEmbedRun(t *testing.T) {
	p := exampletest.Start(t, exampletest.Build(t), []string{"SITEDIAG_API_KEYS=k1, k2", "SITEDIAG_ADDR=127.0.0.1:0"})
	addr := p.WaitFor(t, regexp.MustCompile(`listening on (\S+);`), 30*time.Second)[1]

	get := func(path, key string) (int, string) { return exampletest.Get(t, "http://"+addr+path, key) }
	if code, body := get("/", ""); code != 200 || !strings.Contains(body, "application's own page") {
		t.Errorf("GET /: %d %q", code, body)
	}
	for _, key := range []string{"k1", "k2"} {
		if code, body := get("/diag/health", key); code != 200 || !strings.Contains(body, "API is healthy") {
			t.Errorf("GET /diag/health with %s: %d %s", key, code, body)
		}
	}
	if code, _ := get("/diag/health", "k1, k2"); code != 401 {
		t.Errorf("the whole list as one key: %d, want 401", code)
	}
}
