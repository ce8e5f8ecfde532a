package openapigen

import (
	"encoding"
	"encoding/json"
	"fmt"
	"github.com/sitediag/sitediag/internal/apitag"
	"reflect"
	"strings"
	"time"
)

// Schema is a JSON Schema (draft 2020-12, as OpenAPI 3.1 uses it): the
// keywords the API's description needs.
type Schema struct {
	Ref         string `json:"$ref,omitempty"`
	Type        any    `json:"type,omitempty"` // a name, or a name and "null"
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty"`
	Enum        []any  `json:"enum,omitempty"`
	Const       *any   `json:"const,omitempty"`
	Default     any    `json:"default,omitempty"`
	// Minimum and Maximum bound numbers.
	Minimum     *float64 `json:"minimum,omitempty"`
	Maximum     *float64 `json:"maximum,omitempty"`
	MaxItems    *int     `json:"maxItems,omitempty"`
	UniqueItems bool     `json:"uniqueItems,omitempty"`
	Items       *Schema  `json:"items,omitempty"`
	// Properties are an object's members; Required those always present.
	Properties map[string]*Schema `json:"properties,omitempty"`
	Required   []string           `json:"required,omitempty"`
	// AdditionalProperties is false (no other member) or a *Schema (map
	// values).
	AdditionalProperties any       `json:"additionalProperties,omitempty"`
	AllOf                []*Schema `json:"allOf,omitempty"`
	AnyOf                []*Schema `json:"anyOf,omitempty"`
}

// Custom are the schemas of Go types whose JSON form is their own (a
// json.Marshaler or json.Unmarshaler), which reflection cannot see, by
// type. The function gets the set, to refer to other types (Of) or add
// a component (Add), and whether the schema is of a request (what the
// type reads) or of a response (what it writes).
type Custom map[reflect.Type]func(s *Schemas, request bool) *Schema

// Schemas turns Go types into schemas as encoding/json writes and reads
// them. Named structs become components (#/components/schemas/<Name>),
// referred to by $ref, named after the type; a type of a request body
// gets its own component, suffixed Input, when its form there differs.
type Schemas struct {
	custom     Custom
	docs       *fieldDocs
	renames    map[reflect.Type]string
	components map[string]*Schema
	names      map[componentKey]string
	// owners are the types that took each component name, to report a
	// clash.
	owners map[string]reflect.Type
}

// componentKey is a component's type and whether it was built for a
// request body: the two forms differ, so each has a component of its own.
type componentKey struct {
	t       reflect.Type
	request bool
}

var (
	timeType        = reflect.TypeFor[time.Time]()
	marshalerType   = reflect.TypeFor[json.Marshaler]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textType        = reflect.TypeFor[encoding.TextMarshaler]()
)

// Of returns the schema of values of t in a response.
func (s *Schemas) Of(t reflect.Type) *Schema { return s.of(t, false) }

// ref returns a reference to the component named name.
func ref(name string) *Schema { return &Schema{Ref: "#/components/schemas/" + name} }

// Add adds the component name with schema p, unless it has one, and
// returns a reference to it.
func (s *Schemas) Add(name string, p *Schema) *Schema {
	if _, ok := s.components[name]; !ok {
		s.components[name] = p
	}
	return ref(name)
}

func (s *Schemas) of(t reflect.Type, request bool) *Schema {
	if build, ok := s.custom[t]; ok {
		return build(s, request)
	}
	if t.Kind() == reflect.Pointer {
		return s.of(t.Elem(), request)
	}
	if t == timeType {
		return &Schema{Type: "string", Format: "date-time"}
	}
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) || t.Implements(textType) {
		if e, ok := s.promotedForm(t); ok {
			return s.of(e, request)
		}
		// A type with its own JSON form needs an entry in Custom; a
		// missing one is a programming error the generator reports.
		panic(fmt.Sprintf("openapigen: %v has its own JSON form and no schema", t))
	}
	switch t.Kind() {
	case reflect.Bool:
		return &Schema{Type: "boolean"}
	case reflect.String:
		return &Schema{Type: "string"}
	case reflect.Int64:
		return &Schema{Type: "integer", Format: "int64"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32:
		return &Schema{Type: "integer"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &Schema{Type: "integer", Minimum: ptr(0.0)}
	case reflect.Float32:
		return &Schema{Type: "number", Format: "float"}
	case reflect.Float64:
		return &Schema{Type: "number", Format: "double"}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return &Schema{Type: "string", Format: "byte"}
		}
		return &Schema{Type: "array", Items: s.of(t.Elem(), request)}
	case reflect.Array:
		return &Schema{Type: "array", Items: s.of(t.Elem(), request)}
	case reflect.Map:
		return &Schema{Type: "object", AdditionalProperties: s.of(t.Elem(), request)}
	case reflect.Interface:
		return &Schema{}
	case reflect.Struct:
		if t.Name() == "" {
			return s.object(t, request, "", "")
		}
		return ref(s.component(t, request))
	}
	panic(fmt.Sprintf("openapigen: no JSON schema for %v", t))
}

// promotedForm is the embedded field of struct t whose own JSON form t
// has (a result that embeds a type with a Custom schema).
func (s *Schemas) promotedForm(t reflect.Type) (reflect.Type, bool) {
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

// component is the component name of struct t in a request body's form
// or a response's, adding the component when missing.
func (s *Schemas) component(t reflect.Type, request bool) string {
	key := componentKey{t, request}
	if name, ok := s.names[key]; ok {
		return name
	}
	name := s.componentName(t, request)
	if owner, ok := s.owners[name]; ok && owner != t {
		panic(fmt.Sprintf("openapigen: %v and %v would both be component %s: give one a name in the rename table", owner, t, name))
	}
	s.owners[name] = t
	s.names[key] = name
	s.components[name] = nil // taken, for recursive types
	s.components[name] = s.object(t, request, t.PkgPath(), t.Name())
	return name
}

// componentName is t's name, as the rename table gives it or else with
// its first letter in upper case, suffixed with Input for a request
// body's form.
func (s *Schemas) componentName(t reflect.Type, request bool) string {
	name, ok := s.renames[t]
	if !ok {
		name = strings.ToUpper(t.Name()[:1]) + t.Name()[1:]
	}
	if request {
		name += "Input"
	}
	return name
}

// object is the schema of a struct's JSON object: its exported fields
// by their json names, embedded structs' fields promoted as
// encoding/json does (an outer field wins over an embedded one). pkg
// and owner are where the fields' doc comments are: the package and
// "Type", or "Type.Field" for an inline struct.
func (s *Schemas) object(t reflect.Type, request bool, pkg, owner string) *Schema {
	obj := &Schema{Type: "object", Properties: map[string]*Schema{}, AdditionalProperties: false}
	if err := s.addFields(obj, t, request, pkg, owner, nil); err != nil {
		panic(fmt.Sprintf("openapigen: %v: %v", t, err))
	}
	return obj
}

// addFields adds t's fields to obj. defaults are the members' defaults
// an embedding field's api tag gives, by JSON name.
func (s *Schemas) addFields(obj *Schema, t reflect.Type, request bool, pkg, owner string, defaults map[string]string) error {
	type embed struct {
		t        reflect.Type
		defaults map[string]string
	}
	var embedded []embed
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
				embedded = append(embedded, embed{ft, apitag.EmbeddedDefaults(f.Tag.Get("api"))})
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
		p, err := s.member(f, name, request, pkg, owner, defaults)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		obj.Properties[name] = p
		optional := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		if !optional && !request {
			obj.Required = append(obj.Required, name)
		}
	}
	for _, e := range embedded {
		if err := s.addFields(obj, e.t, request, e.t.PkgPath(), e.t.Name(), e.defaults); err != nil {
			return err
		}
	}
	return nil
}

// member is the schema of field f, member name of an object: its
// type's schema constrained by its api tag, described by its doc
// comment; nullable when f is a pointer in a response, and in a request,
// where encoding/json reads null as absent, unless name is url, the
// target every request requires.
func (s *Schemas) member(f reflect.StructField, name string, request bool, pkg, owner string, defaults map[string]string) (*Schema, error) {
	var p *Schema
	if f.Type.Kind() == reflect.Struct && f.Type.Name() == "" {
		p = s.object(f.Type, request, pkg, owner+"."+f.Name)
	} else if f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct && f.Type.Elem().Name() == "" {
		p = s.object(f.Type.Elem(), request, pkg, owner+"."+f.Name)
	} else {
		p = s.of(f.Type, request)
	}
	if _, ok := f.Tag.Lookup("openapi"); ok {
		return nil, fmt.Errorf("an openapi tag: bounds, enums and defaults are api tags now, descriptions doc comments")
	}
	c, err := apitag.Parse(f.Tag.Get("api"))
	if err != nil {
		return nil, err
	}
	if d, ok := defaults[name]; ok {
		c.Default = d
	}
	if p.Ref != "" && (c.Default != "" || len(c.Enum) > 0 || c.Min != nil || c.Max != nil) {
		return nil, fmt.Errorf("api tag on a member whose schema is a component")
	}
	if p, err = s.constrain(p, &c); err != nil {
		return nil, err
	}
	if (request && name != "url") || (!request && f.Type.Kind() == reflect.Pointer) {
		p = nullable(p)
	}
	if owner != "" {
		doc, err := s.docs.of(pkg, owner+"."+f.Name)
		if err != nil {
			return nil, err
		}
		if doc != "" {
			p = described(p, description(doc, f, name))
		}
	}
	return p, nil
}

// described returns p with description d; a reference is wrapped, since
// $ref's siblings are its component's business.
func described(p *Schema, d string) *Schema {
	if p.Ref != "" {
		return &Schema{AllOf: []*Schema{p}, Description: d}
	}
	p.Description = d
	return p
}

// nullable returns p allowing null as well, never by adding null to an
// enum: an enumerated or alternative schema becomes an alternative with
// {"type": "null"}.
func nullable(p *Schema) *Schema {
	switch {
	case p.Ref != "" || p.AllOf != nil:
		return &Schema{AnyOf: []*Schema{p, {Type: "null"}}}
	case p.Enum != nil:
		inner := &Schema{Type: p.Type, Enum: p.Enum}
		p.Type, p.Enum = nil, nil
		p.AnyOf = []*Schema{inner, {Type: "null"}}
		return p
	case p.AnyOf != nil:
		p.AnyOf = append(p.AnyOf, &Schema{Type: "null"})
		if t, ok := p.Type.(string); ok {
			p.Type = []string{t, "null"}
		}
		return p
	}
	if t, ok := p.Type.(string); ok {
		p.Type = []string{t, "null"}
	}
	return p // {} allows null already
}

// typeName is p's type without "null".
func typeName(p *Schema) string {
	switch t := p.Type.(type) {
	case string:
		return t
	case []string:
		return t[0]
	}
	return ""
}

func ptr[T any](v T) *T { return &v }
