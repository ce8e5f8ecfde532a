package httpapi

import (
	"testing"

	"github.com/sitediag/sitediag"
)

func TestBrokenLinkMessage(t *testing.T) {
	for _, tc := range []struct {
		s    sitediag.LinkSummary
		want string
	}{
		{sitediag.LinkSummary{Total: 4, Successful: 4}, "No broken links found."},
		{sitediag.LinkSummary{Total: 3, Successful: 2, Broken: 1}, "Found 1 broken link out of 3."},
		{sitediag.LinkSummary{Total: 12, Broken: 2, ServerError: 1}, "Found 3 broken links out of 12."},
	} {
		if got := brokenLinkMessage(tc.s); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.s, got, tc.want)
		}
	}
}
