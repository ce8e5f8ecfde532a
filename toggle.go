package sitediag

import "github.com/sitediag/sitediag/option"

// Toggle is an on/off option whose zero value means the operation's
// documented default; see option.Toggle.
type Toggle = option.Toggle

// The values of a Toggle besides the zero value (the default).
const (
	On  = option.On
	Off = option.Off
)

// Seconds is a duration in seconds, the one unit of time of the options
// and results; see option.Seconds.
type Seconds = option.Seconds
