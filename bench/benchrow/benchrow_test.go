package benchrow

import "testing"

func TestMet(t *testing.T) {
	for _, c := range []struct {
		goal  string
		ratio float64
		want  bool
	}{
		{"", 7, true},
		{"<= 0.3", 0.3, true},
		{"<= 0.3", 0.31, false},
		{"< 1", 0.99, true},
		{"< 1", 1, false},
		{">= 0.8", 0.8, true},
		{">= 0.8", 0.79, false},
		{"> 0", 0, false},
		{">= 1", 1, true},
		{"<= 0", 0, true},
		{"about 1", 1, false},
		{"<=0.3", 0.1, false},
	} {
		if got := (Row{Goal: c.goal, Ratio: c.ratio}).Met(); got != c.want {
			t.Errorf("Row{Goal: %q, Ratio: %v}.Met() = %v, want %v", c.goal, c.ratio, got, c.want)
		}
	}
}
