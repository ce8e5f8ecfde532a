package option

import "time"

// Seconds is a duration in seconds, the one unit of time of the options
// and results: in JSON it is a number ("delay": 1.5), as the API has it.
type Seconds float64

// Duration is s as a time.Duration.
func (s Seconds) Duration() time.Duration { return time.Duration(float64(s) * float64(time.Second)) }

// SecondsOf is d in seconds.
func SecondsOf(d time.Duration) Seconds { return Seconds(d.Seconds()) }
