// Package apitag reads the bounds, enums and defaults that the options
// structs of the root package declare in `api` struct tags, so that each
// is written once and read by validation, by the OpenAPI description and
// by the command-line tool.
//
// A tag is a comma-separated list of keys:
//
//	api:"min=320,max=3840"             an inclusive range
//	api:"enum=png|jpeg|webp,default=png" the values allowed (canonical
//	                                    spelling; any case is read)
//	api:"maxItems=3"                   the most items of a list
//	api:"default=true"                 the documented default
//
// Zero means the default: a number member whose range excludes 0 reads 0
// as absent, and an empty string or an unset Toggle likewise. On an
// embedded struct, the tag gives this struct's defaults for the embedded
// struct's members, by JSON name: `api:"blockAds=true,hideCookie=true"`.
package apitag

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A Field is one JSON member of an options struct and what its tag says.
type Field struct {
	// Name is the member's JSON name.
	Name string
	// Index is the field's index sequence, for reflect.Value.FieldByIndex.
	Index []int
	// Type is the field's Go type.
	Type reflect.Type
	// Min and Max bound a number (or a list's items, for MaxItems); nil
	// means unbounded.
	Min, Max *float64
	// MaxItems bounds a list's length; 0 means unbounded.
	MaxItems int
	// Enum are the values allowed, in their canonical spelling.
	Enum []string
	// Default is the documented default, as written in the tag; "" when
	// none is written (the default then depends on the situation, as a
	// device's viewport does, and the field's doc comment says it).
	Default string
}

// Fields are the JSON members of the struct type t, embedded structs'
// members promoted, in declaration order.
func Fields(t reflect.Type) []Field {
	return fields(t, nil, nil)
}

func fields(t reflect.Type, index []int, defaults map[string]string) []Field {
	var out []Field
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() && !(sf.Anonymous && sf.Type.Kind() == reflect.Struct) {
			continue
		}
		idx := append(append([]int(nil), index...), i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		tag := sf.Tag.Get("api")
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
			inner := EmbeddedDefaults(tag)
			for k, v := range defaults {
				inner[k] = v
			}
			out = append(out, fields(sf.Type, idx, inner)...)
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f, err := Parse(tag)
		if err != nil {
			panic(fmt.Sprintf("apitag: %s.%s: %v", t, sf.Name, err))
		}
		f.Name, f.Index, f.Type = name, idx, sf.Type
		if d, ok := defaults[name]; ok {
			f.Default = d
		}
		out = append(out, f)
	}
	return out
}

// EmbeddedDefaults reads the tag of an embedded struct: its members'
// defaults in the embedding struct, by JSON name.
func EmbeddedDefaults(tag string) map[string]string {
	m := map[string]string{}
	for kv := range strings.SplitSeq(tag, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// Parse reads the api tag of a field (not of an embedded struct): the
// Field it gives, without its name, index and type.
func Parse(tag string) (Field, error) {
	var f Field
	if tag == "" {
		return f, nil
	}
	for kv := range strings.SplitSeq(tag, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return f, fmt.Errorf("api tag item %q is not key=value", kv)
		}
		switch k {
		case "min", "max":
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return f, fmt.Errorf("%s=%q is not a number", k, v)
			}
			if k == "min" {
				f.Min = &n
			} else {
				f.Max = &n
			}
		case "maxItems":
			n, err := strconv.Atoi(v)
			if err != nil {
				return f, fmt.Errorf("maxItems=%q is not a number", v)
			}
			f.MaxItems = n
		case "enum":
			f.Enum = strings.Split(v, "|")
		case "default":
			f.Default = v
		default:
			return f, fmt.Errorf("unknown api tag key %q", k)
		}
	}
	return f, nil
}

// ZeroIsDefault says whether a zero number is read as absent: its range
// excludes 0.
func (f *Field) ZeroIsDefault() bool {
	if len(f.Enum) > 0 {
		return !slices.Contains(f.Enum, "0")
	}
	return (f.Min != nil && *f.Min > 0) || (f.Max != nil && *f.Max < 0)
}

// Range says the range in words: "between 320 and 3840", "at least 1".
func (f *Field) Range() string {
	switch {
	case f.Min != nil && f.Max != nil:
		return "between " + num(*f.Min) + " and " + num(*f.Max)
	case f.Min != nil:
		return "at least " + num(*f.Min)
	case f.Max != nil:
		return "at most " + num(*f.Max)
	}
	return ""
}

// OneOf says the enum in words: "png, jpeg or webp".
func (f *Field) OneOf() string {
	if len(f.Enum) < 2 {
		return strings.Join(f.Enum, "")
	}
	return strings.Join(f.Enum[:len(f.Enum)-1], ", ") + " or " + f.Enum[len(f.Enum)-1]
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// An Error is a member whose value its tag does not allow.
type Error struct {
	// Field is the member's JSON name.
	Field string
	// Reason says what is allowed ("must be between 320 and 3840").
	Reason string
}

func (e *Error) Error() string { return e.Field + ": " + e.Reason }

// defaulter is a type with a default of its own to fill in from a tag,
// such as sitediag.Toggle.
type defaulter interface {
	// SetDefault sets the value from the tag's default when it is unset.
	SetDefault(def string) error
}

// Resolve checks the options *ptr against their tags and resolves them:
// enums in their canonical spelling, a zero member that has a default
// set to it. A member out of bounds is an *Error. It reads the tags
// again on every call; a Cache reads them once per type.
func Resolve(ptr any) error {
	return (*Cache)(nil).Resolve(ptr)
}

// A Cache keeps the Fields of every struct type it has read, so that
// resolving options of a type it has seen reads no tag. The zero value
// is ready to use; a nil *Cache keeps nothing. It is safe for concurrent
// use and must not be copied after first use.
type Cache struct {
	fields sync.Map // reflect.Type → []Field
}

// Fields returns Fields(t), read once per type. The slice is shared:
// the caller must not modify it.
func (c *Cache) Fields(t reflect.Type) []Field {
	if c == nil {
		return Fields(t)
	}
	if f, ok := c.fields.Load(t); ok {
		return f.([]Field)
	}
	f, _ := c.fields.LoadOrStore(t, Fields(t))
	return f.([]Field)
}

// Resolve is the package's Resolve with the fields of c.
func (c *Cache) Resolve(ptr any) error {
	return c.resolveStruct(reflect.ValueOf(ptr).Elem(), "")
}

// resolveStruct resolves the struct v, whose members' names are prefixed
// by prefix in errors.
func (c *Cache) resolveStruct(v reflect.Value, prefix string) error {
	for _, f := range c.Fields(v.Type()) {
		f.Name = prefix + f.Name
		if err := c.resolve(&f, v.FieldByIndex(f.Index)); err != nil {
			return err
		}
	}
	return nil
}

// resolve resolves the member v, of field f.
func (c *Cache) resolve(f *Field, v reflect.Value) error {
	if d, ok := v.Addr().Interface().(defaulter); ok {
		if f.Default == "" {
			return nil
		}
		if err := d.SetDefault(f.Default); err != nil {
			panic(fmt.Sprintf("apitag: %s: default %q: %v", f.Name, f.Default, err))
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Struct:
		return c.resolveStruct(v, f.Name+".")
	case reflect.String:
		s, err := f.canonical(v.String())
		if err != nil {
			return err
		}
		if s == "" {
			s = f.Default
		}
		v.SetString(s)
	case reflect.Slice:
		if f.MaxItems > 0 && v.Len() > f.MaxItems {
			return &Error{f.Name, fmt.Sprintf("must have at most %d items", f.MaxItems)}
		}
		if v.Type().Elem().Kind() == reflect.String {
			for i := range v.Len() {
				s, err := f.canonical(v.Index(i).String())
				if err != nil {
					return &Error{f.Name, strconv.Quote(v.Index(i).String()) + " is not one of " + f.OneOf()}
				}
				v.Index(i).SetString(s)
			}
		}
		if v.Len() == 0 && f.Default != "" {
			d := reflect.New(v.Type())
			if err := json.Unmarshal([]byte(f.Default), d.Interface()); err != nil {
				ds := reflect.MakeSlice(v.Type(), 1, 1)
				ds.Index(0).SetString(f.Default)
				d.Elem().Set(ds)
			}
			v.Set(d.Elem())
		}
	case reflect.Pointer:
		if v.Type().Elem().Kind() == reflect.Struct {
			if v.IsNil() {
				return nil
			}
			return c.resolveStruct(v.Elem(), f.Name+".")
		}
		if v.IsNil() {
			if f.Default == "" {
				return nil
			}
			v.Set(reflect.New(v.Type().Elem()))
			setNumber(v.Elem(), f.Default)
		}
		return f.number(v.Elem())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Float32, reflect.Float64:
		if v.CanFloat() && v.Float() == 0 {
			v.SetZero() // -0 is 0
		}
		if v.IsZero() && f.ZeroIsDefault() {
			if f.Default != "" {
				setNumber(v, f.Default)
			}
			return nil
		}
		if err := f.number(v); err != nil {
			return err
		}
		if v.IsZero() && f.Default != "" {
			setNumber(v, f.Default)
		}
	}
	return nil
}

// number checks a number against the range and the enum.
func (f *Field) number(v reflect.Value) error {
	var n float64
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		n = v.Float()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n = float64(v.Int())
	default:
		return nil
	}
	if len(f.Enum) > 0 {
		if slices.Contains(f.Enum, num(n)) {
			return nil
		}
		return &Error{f.Name, "must be " + f.OneOf()}
	}
	if math.IsNaN(n) || (f.Min != nil && n < *f.Min) || (f.Max != nil && n > *f.Max) {
		return &Error{f.Name, "must be " + f.Range()}
	}
	return nil
}

// canonical returns s in its enum's spelling; "" passes.
func (f *Field) canonical(s string) (string, error) {
	if s == "" || len(f.Enum) == 0 {
		return s, nil
	}
	for _, e := range f.Enum {
		if strings.EqualFold(s, e) {
			return e, nil
		}
	}
	return "", &Error{f.Name, "must be " + f.OneOf()}
}

func setNumber(v reflect.Value, s string) {
	n, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(fmt.Sprintf("apitag: default %q is not a number", s))
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		v.SetFloat(n)
	default:
		v.SetInt(int64(n))
	}
}
