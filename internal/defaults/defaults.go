// Package defaults fills in the options a caller left at zero (or set
// below it) with the package's defaults.
package defaults

// Positive returns v when it is above zero, else def.
func Positive[T ~int | ~int64 | ~float64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
