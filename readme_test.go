package sitediag_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docPages are the user documentation: the README and the pages of docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	return append([]string{"README.md"}, pages...)
}

// snippetGivens are what the documentation's Go snippets take as given:
// a context, a mux, a client, a key, handler options and a trace
// exporter. Each snippet is the body of a function returning an error.
const snippetGivens = `package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/httpapi"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/netx"
	"github.com/sitediag/sitediag/tls"
)

var (
	ctx      = context.Background()
	mux      = http.NewServeMux()
	client   *sitediag.Client
	key      string
	opts     httpapi.Options
	exporter sdktrace.SpanExporter
)

var (
	_ = errors.New
	_ = fmt.Sprint
	_ = json.Unmarshal
	_ = os.WriteFile
	_ = browser.JPEG
	_ = dns.Resolver{}
	_ = guard.New
	_ = netx.ErrNotAllowed
	_ = tls.Scan
)

func main() {}
`

// TestDocSnippetsCompile builds every Go snippet of the README and the
// docs/ pages (the README's library snippet first among them), so the
// code a user copies compiles against this checkout.
func TestDocSnippetsCompile(t *testing.T) {
	var src strings.Builder
	src.WriteString(snippetGivens)
	n := 0
	for _, page := range docPages(t) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rest := string(text)
		for {
			var snippet string
			var ok bool
			if _, rest, ok = strings.Cut(rest, "```go\n"); !ok {
				break
			}
			if snippet, rest, ok = strings.Cut(rest, "```"); !ok {
				t.Fatalf("%s: a go block is not closed", page)
			}
			n++
			fmt.Fprintf(&src, "\n// %s\nfunc snippet%d() error {\n%s\treturn nil\n}\n", page, n, snippet)
		}
	}
	readme, _ := os.ReadFile("README.md")
	if _, lib, _ := strings.Cut(string(readme), "## Library usage"); !strings.Contains(lib, "```go\nc, err := sitediag.New(") {
		t.Error("README has no library snippet under ## Library usage")
	}
	if n < 4 {
		t.Fatalf("found %d Go snippets, want the README's two, operations' and the report page's", n)
	}
	// Inside the module, so that it builds against this checkout.
	dir, err := os.MkdirTemp(".", ".readme-snippet-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "vet", "./"+filepath.Base(dir))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the documentation's snippets do not compile: %v\n%s\n%s", err, out, src.String())
	}
}

// TestDocLinks: every relative link of the README and the docs/ pages
// leads to a file of the checkout and, with a #fragment, to a heading of
// that page, so the split pages stay linked to each other.
func TestDocLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	anchors := map[string]map[string]bool{}
	headingsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		a := map[string]bool{}
		text, _ := os.ReadFile(page)
		fence := false
		for line := range strings.Lines(string(text)) {
			if strings.HasPrefix(line, "```") {
				fence = !fence
			}
			if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && !fence && strings.HasPrefix(line, "#") {
				a[slug(strings.TrimSpace(h))] = true
			}
		}
		anchors[page] = a
		return a
	}
	for _, page := range docPages(t) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link %s: %v", page, target, err)
					continue
				}
			}
			if frag != "" && !headingsOf(path)[frag] {
				t.Errorf("%s: link %s: %s has no such heading", page, target, path)
			}
		}
	}
}

// slug is GitHub's anchor of a heading: lower case, punctuation dropped,
// spaces as hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}
