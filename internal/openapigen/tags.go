package openapigen

import (
	"fmt"
	"strconv"
	"strings"
)

// constraint is what a field's api tag says of its values:
// `api:"min=320,max=3840"`, `api:"enum=png|jpeg|webp,default=png"`,
// `api:"default=true"`. On an embedded struct the tag instead gives the
// embedding operation's defaults of its members, by JSON name
// (`api:"blockAds=true,hideCookie=true"`).
type constraint struct {
	min, max *float64
	enum     []string
	// hasDefault tells a default of "" from none.
	def        string
	hasDefault bool
}

// tagItems reads an api tag's comma-separated key=value items, in
// order.
func tagItems(tag string) (keys, values []string, err error) {
	if tag == "" {
		return nil, nil, nil
	}
	for item := range strings.SplitSeq(tag, ",") {
		key, val, ok := strings.Cut(item, "=")
		if !ok {
			return nil, nil, fmt.Errorf("api tag item %q is not key=value", item)
		}
		keys, values = append(keys, key), append(values, val)
	}
	return keys, values, nil
}

// parseConstraint reads an api tag of a field.
func parseConstraint(tag string) (constraint, error) {
	var c constraint
	keys, values, err := tagItems(tag)
	for i, key := range keys {
		val := values[i]
		switch key {
		case "min", "max":
			n, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return c, fmt.Errorf("api tag %s: %w", key, err)
			}
			if key == "min" {
				c.min = &n
			} else {
				c.max = &n
			}
		case "enum":
			c.enum = strings.Split(val, "|")
		case "default":
			c.def, c.hasDefault = val, true
		default:
			return c, fmt.Errorf("unknown api tag key %q", key)
		}
	}
	return c, err
}

// parseDefaults reads the api tag of an embedded struct: its members'
// defaults by JSON name.
func parseDefaults(tag string) (map[string]string, error) {
	names, values, err := tagItems(tag)
	defaults := map[string]string{}
	for i, name := range names {
		defaults[name] = values[i]
	}
	return defaults, err
}

// apply constrains p, the schema of a field's values, by c and returns
// the result. Enums and bounds constrain an array's items. A number
// option whose range or enum leaves 0 out takes 0 as its default, as
// when absent: that is a second alternative, {"const": 0}.
func (c constraint) apply(p *Schema) (*Schema, error) {
	target := p
	if target.Items != nil {
		target = target.Items
	}
	for _, v := range c.enum {
		e, err := typedValue(target, v)
		if err != nil {
			return nil, err
		}
		target.Enum = append(target.Enum, e)
	}
	target.Minimum, target.Maximum = c.min, c.max
	if c.hasDefault {
		d, err := typedValue(p, c.def)
		if err != nil {
			return nil, err
		}
		p.Default = d
	}
	if number(target) && target == p && c.excludesZero() {
		inner := &Schema{Type: p.Type, Enum: p.Enum, Minimum: p.Minimum, Maximum: p.Maximum}
		p.Enum, p.Minimum, p.Maximum = nil, nil, nil
		p.AnyOf = []*Schema{inner, {Type: p.Type, Const: ptr[any](0), Description: "the default, as when absent"}}
	}
	return p, nil
}

// excludesZero reports whether 0 is outside c's range or enum.
func (c constraint) excludesZero() bool {
	if len(c.enum) > 0 {
		for _, e := range c.enum {
			if n, err := strconv.ParseFloat(e, 64); err == nil && n == 0 {
				return false
			}
		}
		return true
	}
	return (c.min != nil && *c.min > 0) || (c.max != nil && *c.max < 0)
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
