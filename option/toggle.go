package option

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
)

// Toggle is an on/off option whose zero value means the operation's
// documented default, so that every boolean option has one name and one
// polarity, the API's, whatever its default is: FollowRedirect, BlockAds,
// FullPage, RenderJS, …
//
// In JSON a Toggle is a boolean: true is On, false is Off, and null or
// an absent member leaves it unset (an unset Toggle is omitted).
type Toggle uint8

// The values of a Toggle besides the zero value (the default).
const (
	On Toggle = iota + 1
	Off
)

// ToggleOf returns On for true and Off for false.
func ToggleOf(b bool) Toggle {
	if b {
		return On
	}
	return Off
}

// Bool is the toggle's value once resolved: true for On, false for Off
// and unset.
func (t Toggle) Bool() bool { return t == On }

// String is "true", "false" or "" (unset).
func (t Toggle) String() string {
	if t == 0 {
		return ""
	}
	return strconv.FormatBool(t.Bool())
}

// SetDefault sets an unset toggle to def, "true" or "false".
func (t *Toggle) SetDefault(def string) error {
	if *t != 0 {
		return nil
	}
	b, err := strconv.ParseBool(def)
	if err != nil {
		return fmt.Errorf("toggle default %q: %w", def, err)
	}
	*t = ToggleOf(b)
	return nil
}

// MarshalJSON writes true, false, or null when unset.
func (t Toggle) MarshalJSON() ([]byte, error) {
	if t == 0 {
		return []byte("null"), nil
	}
	return strconv.AppendBool(nil, t.Bool()), nil
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
