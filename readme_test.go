package sitediag_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMELibrarySnippetCompiles builds the README's library snippet
// as the body of a function, so the first code a user copies compiles.
func TestREADMELibrarySnippetCompiles(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Library usage")
	_, snippet, ok2 := strings.Cut(section, "```go\n")
	snippet, _, ok3 := strings.Cut(snippet, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README has no go block under ## Library usage")
	}
	src := "package main\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"fmt\"\n\n\t\"github.com/sitediag/sitediag\"\n)\n\n" +
		"func main() { _ = run(context.Background()) }\n\nfunc run(ctx context.Context) error {\n" + snippet + "\treturn nil\n}\n"
	// Inside the module, so that it builds against this checkout.
	dir, err := os.MkdirTemp(".", ".readme-snippet-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "vet", "./"+filepath.Base(dir))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the README's library snippet does not compile: %v\n%s\n%s", err, out, src)
	}
}
