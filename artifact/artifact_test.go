package artifact_test

import (
	"strings"
	"testing"

	"github.com/sitediag/sitediag/artifact"
)

func TestNewName(t *testing.T) {
	a, err := artifact.NewName("png")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := artifact.NewName("png")
	if a == b || len(a) != 36 || !strings.HasSuffix(a, ".png") || !artifact.ValidName(a) {
		t.Errorf("NewName gave %q then %q, want two different <32 hex>.png", a, b)
	}
	for _, ext := range []string{"", "PNG", "tar.gz", "toolongext", "p/g", "../x"} {
		if n, err := artifact.NewName(ext); err == nil {
			t.Errorf("NewName(%q) = %q, want an error", ext, n)
		}
	}
}

func TestValidName(t *testing.T) {
	for n, want := range map[string]bool{
		"0123456789abcdef0123456789abcdef.pdf":       true,
		"0123456789abcdef0123456789abcdef.json":      true,
		"0123456789ABCDEF0123456789abcdef.pdf":       false,
		"0123456789abcdef0123456789abcde.pdf":        false,
		"0123456789abcdef0123456789abcdef":           false,
		"../0123456789abcdef0123456789abcdef.pdf":    false,
		"0123456789abcdef0123456789abcdef.pdf\n":     false,
		".check-0123456789abcdef":                    false,
		"0123456789abcdef0123456789abcdef.toolong99": false,
	} {
		if got := artifact.ValidName(n); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", n, got, want)
		}
	}
}
