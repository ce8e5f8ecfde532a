// Package benchstat holds the statistics the bench commands share.
package benchstat

import (
	"sort"
	"time"
)

// Median is the median of v (the mean of the two middle values when
// their number is even), 0 when v is empty. v is not changed.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Millis is d in milliseconds, to the microsecond: the unit of the
// benchmark table's times.
func Millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
