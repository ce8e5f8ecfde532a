package sitediag

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// Toggle is an on/off option whose zero value means the operation's
// documented default, so that every flag has one name and one polarity
// in every options struct (FollowRedirect, BlockAds, HideCookieBanners,
// SkipCaptcha) whatever its default is.
//
// In JSON, true is On, false is Off, and null or an absent member leaves
// the zero value.
type Toggle uint8

// The values of a Toggle besides the zero value (the default).
const (
	On Toggle = iota + 1
	Off
)

// Or returns the toggle's value, def when it is unset.
func (t Toggle) Or(def bool) bool {
	switch t {
	case On:
		return true
	case Off:
		return false
	}
	return def
}

// UnmarshalJSON reads a JSON boolean (or null).
func (t *Toggle) UnmarshalJSON(b []byte) error {
	switch string(bytes.TrimSpace(b)) {
	case "true":
		*t = On
	case "false":
		*t = Off
	case "null":
	default:
		return &json.UnmarshalTypeError{Value: jsonKind(b), Type: reflect.TypeFor[bool]()}
	}
	return nil
}

// jsonKind names the kind of a JSON value for a type error.
func jsonKind(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "value"
	}
	switch b[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "number"
}
