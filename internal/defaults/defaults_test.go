package defaults

import (
	"testing"
	"time"
)

func TestPositive(t *testing.T) {
	for _, tc := range []struct{ v, want time.Duration }{
		{0, time.Second},
		{-time.Millisecond, time.Second},
		{time.Millisecond, time.Millisecond},
	} {
		if got := Positive(tc.v, time.Second); got != tc.want {
			t.Errorf("Positive(%v, 1s) = %v, want %v", tc.v, got, tc.want)
		}
	}
	if got := Positive(0, 5); got != 5 {
		t.Errorf("Positive(0, 5) = %d, want 5", got)
	}
}
