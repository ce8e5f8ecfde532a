package httpapi

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sitediag/sitediag"
)

// schema is a JSON Schema (draft 2020-12, as OpenAPI 3.1 uses it): the
// keywords the API's description needs.
type schema struct {
	Ref         string `json:"$ref,omitempty"`
	Type        any    `json:"type,omitempty"` // a name, or names with "null"
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty"`
	Enum        []any  `json:"enum,omitempty"`
	Default     any    `json:"default,omitempty"`
	// Minimum, Maximum and ExclusiveMinimum bound numbers.
	Minimum          *float64 `json:"minimum,omitempty"`
	Maximum          *float64 `json:"maximum,omitempty"`
	ExclusiveMinimum *float64 `json:"exclusiveMinimum,omitempty"`
	MaxItems         *int     `json:"maxItems,omitempty"`
	UniqueItems      bool     `json:"uniqueItems,omitempty"`
	Items            *schema  `json:"items,omitempty"`
	// Properties are an object's members; Required those always present.
	Properties map[string]*schema `json:"properties,omitempty"`
	Required   []string           `json:"required,omitempty"`
	// AdditionalProperties is false (no other member) or a *schema (map
	// values).
	AdditionalProperties any       `json:"additionalProperties,omitempty"`
	AnyOf                []*schema `json:"anyOf,omitempty"`
}

// schemaFor is the schema of a Go type whose JSON form is its own
// (a json.Marshaler or json.Unmarshaler), which reflection cannot see.
type schemaFor map[reflect.Type]func(*schemaSet) *schema

// schemaSet turns Go types into schemas as encoding/json writes and
// reads them. Named structs of other packages become components
// (#/components/schemas/<Name>), referred to by $ref; the handler's own
// unexported types are inlined.
type schemaSet struct {
	// request is true while requestBody builds a request body: nothing
	// is required there, since every member has a default, and null
	// means absent.
	request    bool
	custom     schemaFor
	components map[string]*schema
	names      map[componentKey]string
}

// componentKey is a component's type and whether it was built for a
// request body: the two forms differ, so each has a component of its own.
type componentKey struct {
	t       reflect.Type
	request bool
}

func newSchemaSet(custom schemaFor) *schemaSet {
	return &schemaSet{custom: custom, components: map[string]*schema{}, names: map[componentKey]string{}}
}

// requestBody is the schema of a request body decoded into t.
func (s *schemaSet) requestBody(t reflect.Type) *schema {
	s.request = true
	defer func() { s.request = false }()
	return s.of(t)
}

var (
	timeType        = reflect.TypeFor[time.Time]()
	marshalerType   = reflect.TypeFor[json.Marshaler]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textType        = reflect.TypeFor[encoding.TextMarshaler]()
)

// of returns the schema of values of t.
func (s *schemaSet) of(t reflect.Type) *schema {
	if build, ok := s.custom[t]; ok {
		return build(s)
	}
	if t.Kind() == reflect.Pointer {
		if build, ok := s.custom[t.Elem()]; ok {
			return nullable(build(s))
		}
		return nullable(s.of(t.Elem()))
	}
	if t == timeType {
		return &schema{Type: "string", Format: "date-time"}
	}
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) || t.Implements(textType) {
		if e, ok := s.promotedForm(t); ok {
			return s.of(e)
		}
		// A type with its own JSON form needs an entry in custom; a
		// missing one is a programming error the description test
		// reports at once.
		panic(fmt.Sprintf("httpapi: %v has its own JSON form and no schema", t))
	}
	switch t.Kind() {
	case reflect.Bool:
		return &schema{Type: "boolean"}
	case reflect.String:
		return &schema{Type: "string"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &schema{Type: "integer"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &schema{Type: "integer", Minimum: ptr(0.0)}
	case reflect.Float32, reflect.Float64:
		return &schema{Type: "number"}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nullable(&schema{Type: "string", Format: "byte"})
		}
		return nullable(&schema{Type: "array", Items: s.of(t.Elem())})
	case reflect.Array:
		return &schema{Type: "array", Items: s.of(t.Elem())}
	case reflect.Map:
		return nullable(&schema{Type: "object", AdditionalProperties: s.of(t.Elem())})
	case reflect.Interface:
		return &schema{}
	case reflect.Struct:
		return s.structOf(t)
	}
	panic(fmt.Sprintf("httpapi: no JSON schema for %v", t))
}

// promotedForm is the embedded field of struct t whose own JSON form t
// has (DNSRecordsResult is its dns.Records).
func (s *schemaSet) promotedForm(t reflect.Type) (reflect.Type, bool) {
	if t.Kind() != reflect.Struct {
		return nil, false
	}
	for f := range t.Fields() {
		if _, ok := s.custom[f.Type]; ok && f.Anonymous {
			return f.Type, true
		}
	}
	return nil, false
}

// structOf is the schema of a struct: a component for a named type of
// another package, else inline.
func (s *schemaSet) structOf(t reflect.Type) *schema {
	if t.Name() == "" || t.PkgPath() == reflect.TypeFor[Handler]().PkgPath() {
		return s.object(t)
	}
	key := componentKey{t, s.request}
	name, ok := s.names[key]
	if !ok {
		name = s.componentName(t)
		s.names[key] = name
		s.components[name] = nil // taken, for recursive types
		s.components[name] = s.object(t)
	}
	return &schema{Ref: "#/components/schemas/" + name}
}

// componentName is t's name, prefixed for a type of a package other
// than sitediag by that package's name (TlsCertificate, BrandRecord),
// unless the name starts with it already (DNSSECResult), and suffixed
// with Input for a request body's form (ContentSchemaInput).
func (s *schemaSet) componentName(t reflect.Type) string {
	name := t.Name()
	if pkg := t.PkgPath()[strings.LastIndex(t.PkgPath(), "/")+1:]; t.PkgPath() != reflect.TypeFor[sitediag.Code]().PkgPath() &&
		!strings.HasPrefix(strings.ToLower(name), pkg) {
		name = strings.ToUpper(pkg[:1]) + pkg[1:] + name
	}
	if s.request {
		name += "Input"
	}
	return name
}

// object is the schema of a struct's JSON object: its exported fields
// by their json names, embedded structs' fields promoted as
// encoding/json does (an outer field wins over an embedded one).
func (s *schemaSet) object(t reflect.Type) *schema {
	obj := &schema{Type: "object", Properties: map[string]*schema{}, AdditionalProperties: false}
	s.addFields(obj, t)
	return obj
}

func (s *schemaSet) addFields(obj *schema, t reflect.Type) {
	var embedded []reflect.Type
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				embedded = append(embedded, ft)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, ok := obj.Properties[name]; ok {
			continue
		}
		p, err := annotate(s.of(f.Type), f)
		if err != nil {
			panic(fmt.Sprintf("httpapi: %v.%s: %v", t, f.Name, err))
		}
		if s.request {
			p = nullable(p) // encoding/json reads null as the zero value: absent
		}
		obj.Properties[name] = p
		optional := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		if !optional && !s.request {
			obj.Required = append(obj.Required, name)
		}
	}
	for _, et := range embedded {
		s.addFields(obj, et)
	}
}

// annotate applies a field's openapi tag to its schema p and returns
// the result. The tag is a comma list of enum=a|b|c, default=v,
// minimum=n, maximum=n, exclusiveMinimum=n, maxItems=n, unique, zero
// (0 is accepted too, meaning the default) and description=text, which
// must come last.
func annotate(p *schema, f reflect.StructField) (*schema, error) {
	tag, ok := f.Tag.Lookup("openapi")
	if !ok {
		return p, nil
	}
	target := p
	if target.Items != nil {
		target = target.Items // enum and bounds constrain an array's items
	}
	var zero bool
	var description string
	for tag != "" {
		var item string
		if strings.HasPrefix(tag, "description=") {
			item, tag = tag, ""
		} else {
			item, tag, _ = strings.Cut(tag, ",")
		}
		key, val, _ := strings.Cut(item, "=")
		switch key {
		case "description":
			description = val
		case "enum":
			for v := range strings.SplitSeq(val, "|") {
				e, err := typedValue(target, v)
				if err != nil {
					return nil, err
				}
				target.Enum = append(target.Enum, e)
			}
		case "default":
			d, err := typedValue(target, val)
			if err != nil {
				return nil, err
			}
			p.Default = d
		case "minimum", "maximum", "exclusiveMinimum":
			n, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return nil, err
			}
			switch key {
			case "minimum":
				target.Minimum = &n
			case "maximum":
				target.Maximum = &n
			default:
				target.ExclusiveMinimum = &n
			}
		case "maxItems":
			n, err := strconv.Atoi(val)
			if err != nil {
				return nil, err
			}
			p.MaxItems = &n
		case "unique":
			p.UniqueItems = true
		case "zero":
			zero = true
		default:
			return nil, fmt.Errorf("unknown openapi tag key %q", key)
		}
	}
	if t, ok := target.Type.([]string); ok && len(target.Enum) > 0 && t[len(t)-1] == "null" {
		target.Enum = append(target.Enum, nil)
	}
	if zero {
		p = &schema{AnyOf: []*schema{p, {Type: typeName(p), Enum: []any{0}}}, Default: p.Default}
		p.AnyOf[0].Default = nil
	}
	p.Description = description
	return p, nil
}

// typedValue reads a default in p's type.
func typedValue(p *schema, v string) (any, error) {
	switch typeName(p) {
	case "boolean":
		return strconv.ParseBool(v)
	case "integer":
		return strconv.Atoi(v)
	case "number":
		return strconv.ParseFloat(v, 64)
	}
	return v, nil
}

// typeName is p's type without "null".
func typeName(p *schema) string {
	switch t := p.Type.(type) {
	case string:
		return t
	case []string:
		return t[0]
	}
	return ""
}

// nullable returns p allowing null as well.
func nullable(p *schema) *schema {
	switch t := p.Type.(type) {
	case string:
		p.Type = []string{t, "null"}
		if p.Enum != nil {
			p.Enum = append(p.Enum, nil)
		}
		return p
	case []string:
		return p
	}
	if p.Ref == "" && p.Type == nil {
		if p.AnyOf != nil && !slices.ContainsFunc(p.AnyOf, func(a *schema) bool { return a.Type == "null" }) {
			p.AnyOf = append(p.AnyOf, &schema{Type: "null"})
		}
		return p // {} allows null already
	}
	return &schema{AnyOf: []*schema{p, {Type: "null"}}}
}

func ptr[T any](v T) *T { return &v }
