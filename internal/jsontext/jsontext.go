// Package jsontext walks JSON text that encoding/json has already found
// valid, for what encoding/json does not say: which member an object
// names twice, and an object's members as text. It checks nothing and
// allocates only for names that need unescaping.
package jsontext

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Member is one member of an object.
type Member struct {
	// Name is the member's name, unescaped.
	Name []byte
	// Text is the member as written: "name": value.
	Text []byte
	// Value is the member's value as written.
	Value []byte
}

// Members appends to buf the members of the object b holds, in the
// order written, and reports whether b holds an object (else it appends
// nothing). b must start with a value encoding/json has found valid.
func Members(b []byte, buf []Member) ([]Member, bool) {
	t := text{b: b}
	if t.peek() != '{' {
		return buf, false
	}
	t.i++
	for t.peek() != '}' {
		start := t.i
		name := t.name()
		t.peek()
		value := t.i
		t.skipValue()
		buf = append(buf, Member{Name: name, Text: b[start:t.i], Value: b[value:t.i]})
		if !t.next() {
			break
		}
	}
	return buf, true
}

// DuplicateMember returns the path of the first member of body that its
// object names twice ("url", "margin.top", "headers[1].name"), or "".
// Names are compared case-insensitively, as encoding/json matches them to
// fields. A gateway in front of us may read the first of two members
// where we would read the last, so such a body is refused, not guessed
// at. body must start with a value encoding/json has found valid; what
// follows that value is not read.
func DuplicateMember(body []byte) string {
	t := text{b: body}
	return t.duplicateIn("")
}

// text is a cursor over JSON text that encoding/json has already found
// valid.
type text struct {
	b []byte
	i int
}

// peek skips white space and returns the byte at the cursor, 0 at the
// end.
func (t *text) peek() byte {
	for t.i < len(t.b) {
		switch c := t.b[t.i]; c {
		case ' ', '\t', '\n', '\r':
			t.i++
		default:
			return c
		}
	}
	return 0
}

// name reads the member name at the cursor and the colon after it, and
// returns the name unescaped.
func (t *text) name() []byte {
	raw := t.str()
	t.peek()
	t.i++ // :
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner
	}
	var s string
	json.Unmarshal(raw, &s) // valid: cannot fail
	return []byte(s)
}

// str reads the string at the cursor, quotes included.
func (t *text) str() []byte {
	start := t.i
	t.i++ // "
	for t.b[t.i] != '"' {
		if t.b[t.i] == '\\' {
			t.i++
		}
		t.i++
	}
	t.i++
	return t.b[start:t.i]
}

// skipValue moves the cursor past the value at it.
func (t *text) skipValue() {
	switch t.peek() {
	case '"':
		t.str()
	case '{', '[':
		depth := 0
		for {
			switch t.b[t.i] {
			case '"':
				t.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			t.i++
			if depth == 0 {
				return
			}
		}
	default: // a number, true, false or null: up to a delimiter
		for ; t.i < len(t.b); t.i++ {
			switch t.b[t.i] {
			case ',', ']', '}', ' ', '\t', '\n', '\r':
				return
			}
		}
	}
}

// next moves past the comma after a member or an item and says whether
// one follows; else it moves past the closing bracket.
func (t *text) next() bool {
	c := t.peek()
	t.i++
	return c == ','
}

// duplicateIn is DuplicateMember of the value at the cursor, whose path
// is at, moving past it.
func (t *text) duplicateIn(at string) string {
	switch t.peek() {
	case '{':
		return t.duplicateInObject(at)
	case '[':
		t.i++
		if t.peek() == ']' {
			t.i++
			return ""
		}
		for n := 0; ; n++ {
			if c := t.peek(); c == '{' || c == '[' {
				if dup := t.duplicateIn(at + "[" + strconv.Itoa(n) + "]"); dup != "" {
					return dup
				}
			} else {
				t.skipValue()
			}
			if !t.next() {
				return ""
			}
		}
	}
	t.skipValue()
	return ""
}

func (t *text) duplicateInObject(at string) string {
	t.i++ // {
	if t.peek() == '}' {
		t.i++
		return ""
	}
	var names [16][]byte
	seen := names[:0]
	for {
		name := t.name()
		for _, s := range seen {
			if sameName(s, name) {
				return memberPath(at, name)
			}
		}
		seen = append(seen, name)
		if c := t.peek(); c == '{' || c == '[' {
			if dup := t.duplicateIn(memberPath(at, name)); dup != "" {
				return dup
			}
		} else {
			t.skipValue()
		}
		if !t.next() {
			return ""
		}
	}
}

// memberPath is the path of the member name of the object at.
func memberPath(at string, name []byte) string {
	if at == "" {
		return string(name)
	}
	return at + "." + string(name)
}

// sameName says whether a and b are the same name in lower case. Beyond
// ASCII that is strings.ToLower's lower case, which folds a few letters
// otherwise than strings.EqualFold does.
func sameName(a, b []byte) bool {
	if isASCII(a) && isASCII(b) {
		return bytes.EqualFold(a, b)
	}
	lowerA, lowerB := strings.ToLower(string(a)), strings.ToLower(string(b))
	return lowerA == lowerB
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
