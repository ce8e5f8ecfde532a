package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitag"
)

// optionFlags registers a flag for every member of the options struct
// *opts, named as the API member in kebab case (fullPage:
// --full-page; margin.top: --margin-top). A flag's value is read as
// the API reads the member's JSON, so the command line and the API
// accept the same values; the bounds and enums are the library's own,
// checked when the operation runs. docs gives each member's help text,
// by JSON name.
func optionFlags(fs *flag.FlagSet, opts any, docs map[string]string) {
	v := reflect.ValueOf(opts).Elem()
	addFlags(fs, v, "", docs)
}

func addFlags(fs *flag.FlagSet, v reflect.Value, prefix string, docs map[string]string) {
	for _, f := range apitag.Fields(v.Type()) {
		fv := v.FieldByIndex(f.Index)
		name := prefix + f.Name
		if fv.Kind() == reflect.Struct && fv.Type() != reflect.TypeFor[sitediag.Toggle]() {
			addFlags(fs, fv, name+".", docs)
			continue
		}
		fs.Var(&memberFlag{v: fv}, kebab(name), flagUsage(&f, docs[name]))
	}
}

// flagUsage is a member's help: its doc, then what it allows and its
// default.
func flagUsage(f *apitag.Field, doc string) string {
	var parts []string
	if doc != "" {
		parts = append(parts, strings.TrimSuffix(doc, "."))
	}
	unit := ""
	if f.Type == reflect.TypeFor[sitediag.Seconds]() {
		unit = " `seconds`"
	}
	switch {
	case len(f.Enum) > 0:
		parts = append(parts, "one of "+f.OneOf())
	case f.Range() != "":
		parts = append(parts, f.Range()+unit)
	case unit != "":
		parts = append(parts, "in"+unit)
	}
	if f.Default != "" {
		parts = append(parts, "default "+f.Default)
	}
	if f.MaxItems > 0 {
		parts = append(parts, fmt.Sprintf("comma-separated, at most %d", f.MaxItems))
	} else if f.Type.Kind() == reflect.Slice {
		parts = append(parts, "comma-separated")
	}
	if f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct {
		parts = append(parts, "JSON")
	}
	return strings.Join(parts, "; ")
}

// kebab turns an API member name into a flag name: fullPage is
// full-page, renderJS render-js, margin.top margin-top.
func kebab(name string) string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case r == '.':
			b.WriteByte('-')
		case unicode.IsUpper(r):
			if i > 0 && rs[i-1] != '.' && (!unicode.IsUpper(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// memberFlag sets one member of an options struct from its text, read
// as the member's JSON: a string as a JSON string, a list as an array of
// its comma-separated items, anything else (numbers, booleans, objects)
// as JSON text.
type memberFlag struct {
	v   reflect.Value
	set bool
}

func (m *memberFlag) String() string {
	if m == nil || !m.set {
		return ""
	}
	b, _ := json.Marshal(m.v.Interface())
	return string(b)
}

func (m *memberFlag) Set(s string) error {
	text := s
	switch kind := m.v.Kind(); {
	case kind == reflect.String:
		text = strconv.Quote(s)
	case kind == reflect.Slice:
		var items []string
		for item := range strings.SplitSeq(s, ",") {
			if item = strings.TrimSpace(item); item != "" {
				items = append(items, item)
			}
		}
		b, _ := json.Marshal(items)
		text = string(b)
	}
	p := reflect.New(m.v.Type())
	if err := json.Unmarshal([]byte(text), p.Interface()); err != nil {
		return fmt.Errorf("%q is not %s", s, describeKind(m.v.Type()))
	}
	m.v.Set(p.Elem())
	m.set = true
	return nil
}

// IsBoolFlag lets a Toggle be given as --flag, meaning true.
func (m *memberFlag) IsBoolFlag() bool { return m.v.Type() == reflect.TypeFor[sitediag.Toggle]() }

func describeKind(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[sitediag.Toggle]():
		return "true or false"
	case t.Kind() == reflect.Pointer:
		return describeKind(t.Elem())
	case t.Kind() == reflect.Struct:
		return "a JSON object"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return "a whole number"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "a number"
	}
	return "a valid value"
}
