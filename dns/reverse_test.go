package dns

import "testing"

func TestTXTText(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"v=spf1 -all"}, "v=spf1 -all"},
		{[]string{`caf\195\169`}, "café"},
		{[]string{`a\"b`}, `a"b`},
		{[]string{`tab\009x`}, "tab\tx"},
		{[]string{`back\\slash`}, `back\slash`},
		{[]string{"chunk one ", "chunk two"}, "chunk one chunk two"},
		{[]string{`trailing\`}, `trailing\`},
	} {
		if got := txtText(tc.in); got != tc.want {
			t.Errorf("txtText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
