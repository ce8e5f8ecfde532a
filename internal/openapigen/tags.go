package openapigen

import (
	"strconv"
	"strings"

	"github.com/sitediag/sitediag/internal/apitag"
)

// constrain constrains p, the schema of a field's values, by what the
// field's api tag says (see internal/apitag) and returns the result.
// Enums and bounds constrain an array's items. A number option whose
// range or enum leaves 0 out takes 0 as its default, as when absent: that
// is a second alternative, {"const": 0}.
func (s *Schemas) constrain(p *Schema, c *apitag.Field) (*Schema, error) {
	if p.Type == nil && p.Ref == "" && len(p.AnyOf) > 0 {
		// A type with alternative forms (one item or a list of them):
		// each is constrained.
		each := *c
		each.Default = ""
		for i, alt := range p.AnyOf {
			var err error
			if p.AnyOf[i], err = s.constrain(alt, &each); err != nil {
				return nil, err
			}
		}
		return p, nil
	}
	target := p
	if target.Items != nil {
		target = target.Items
	}
	if target.Ref != "" && (c.Enum != nil || c.Min != nil || c.Max != nil) {
		// Items that are a component (one a custom form shares between
		// its alternatives): the enum is the component's, once.
		target = s.components[strings.TrimPrefix(target.Ref, "#/components/schemas/")]
		if target.Enum != nil {
			c = &apitag.Field{Min: c.Min, Max: c.Max, MaxItems: c.MaxItems, Default: c.Default}
		}
	}
	for _, v := range c.Enum {
		e, err := typedValue(target, v)
		if err != nil {
			return nil, err
		}
		target.Enum = append(target.Enum, e)
	}
	target.Minimum, target.Maximum = c.Min, c.Max
	if c.MaxItems > 0 && p.Items != nil {
		p.MaxItems = &c.MaxItems
	}
	if c.Default != "" {
		d, err := typedValue(p, c.Default)
		if err != nil {
			return nil, err
		}
		p.Default = d
	}
	if number(target) && target == p && c.ZeroIsDefault() {
		inner := &Schema{Type: p.Type, Enum: p.Enum, Minimum: p.Minimum, Maximum: p.Maximum}
		p.Enum, p.Minimum, p.Maximum = nil, nil, nil
		p.AnyOf = []*Schema{inner, {Type: p.Type, Const: ptr[any](0), Description: "the default, as when absent"}}
	}
	return p, nil
}

// number reports whether p is of a numeric type.
func number(p *Schema) bool {
	t := typeName(p)
	return t == "integer" || t == "number"
}

// typedValue reads a tag's value in p's type.
func typedValue(p *Schema, v string) (any, error) {
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
