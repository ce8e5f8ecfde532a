package content

import (
	"fmt"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
)

// Schema is a CSS extraction schema, in Crawl4AI's shape: every element
// BaseSelector matches yields one object of Fields.
type Schema struct {
	Name         string  `json:"name"`
	BaseSelector string  `json:"baseSelector"`
	Fields       []Field `json:"fields"`
}

// Field is one member of an extracted object.
type Field struct {
	Name string `json:"name"`
	// Selector is relative to the object's element; empty means the
	// element itself.
	Selector string `json:"selector"`
	// Type is text, html, attribute (of Attribute), list (every match:
	// objects of Fields, or texts without Fields) or nested (the first
	// match as an object of Fields).
	Type      string  `json:"type"`
	Attribute string  `json:"attribute,omitempty"`
	Fields    []Field `json:"fields,omitempty"`
}

// Schema limits.
const (
	MaxSchemaFields = 100
	MaxSchemaDepth  = 5
)

// SchemaError names what is wrong with a schema: Field is its JSON path
// ("fields[2].selector").
type SchemaError struct {
	Field   string
	Problem string
}

func (e *SchemaError) Error() string { return "content: schema " + e.Field + ": " + e.Problem }

// Check validates s: selectors that parse, known types, an attribute
// for attribute fields, sub-fields for nested ones, and the limits.
func (s *Schema) Check() error {
	if strings.TrimSpace(s.BaseSelector) == "" {
		return &SchemaError{"baseSelector", "is required"}
	}
	if _, err := cascadia.ParseGroup(s.BaseSelector); err != nil {
		return &SchemaError{"baseSelector", "is not a valid CSS selector"}
	}
	if len(s.Fields) == 0 {
		return &SchemaError{"fields", "needs at least one field"}
	}
	count := 0
	return checkFields(s.Fields, "fields", 1, &count)
}

func checkFields(fields []Field, path string, depth int, count *int) error {
	if depth > MaxSchemaDepth {
		return &SchemaError{path, fmt.Sprintf("nests deeper than %d levels", MaxSchemaDepth)}
	}
	for i, f := range fields {
		*count++
		if *count > MaxSchemaFields {
			return &SchemaError{path, fmt.Sprintf("has more than %d fields in all", MaxSchemaFields)}
		}
		p := fmt.Sprintf("%s[%d]", path, i)
		if f.Name == "" {
			return &SchemaError{p + ".name", "is required"}
		}
		if f.Selector != "" {
			if _, err := cascadia.ParseGroup(f.Selector); err != nil {
				return &SchemaError{p + ".selector", "is not a valid CSS selector"}
			}
		}
		switch f.Type {
		case "", "text", "html":
		case "attribute":
			if f.Attribute == "" {
				return &SchemaError{p + ".attribute", "is required for type attribute"}
			}
		case "nested":
			if len(f.Fields) == 0 {
				return &SchemaError{p + ".fields", "are required for type nested"}
			}
		case "list":
		default:
			return &SchemaError{p + ".type", "must be text, html, attribute, list or nested"}
		}
		if err := checkFields(f.Fields, p+".fields", depth+1, count); err != nil {
			return err
		}
	}
	return nil
}

// Extract applies a checked schema to d: one object per element
// BaseSelector matches, in document order. A field whose selector
// matches nothing is null.
func (s *Schema) Extract(d *Document) []map[string]any {
	out := []map[string]any{}
	d.Doc.Find(s.BaseSelector).Each(func(_ int, el *goquery.Selection) {
		out = append(out, extractObject(d, el, s.Fields))
	})
	return out
}

func extractObject(d *Document, el *goquery.Selection, fields []Field) map[string]any {
	obj := make(map[string]any, len(fields))
	for _, f := range fields {
		target := el
		if f.Selector != "" {
			target = el.Find(f.Selector)
		}
		obj[f.Name] = extractField(d, target, f)
	}
	return obj
}

func extractField(d *Document, sel *goquery.Selection, f Field) any {
	if f.Type == "list" {
		items := []any{}
		sel.Each(func(_ int, s *goquery.Selection) {
			if len(f.Fields) > 0 {
				items = append(items, extractObject(d, s, f.Fields))
			} else {
				items = append(items, clean(s.Text()))
			}
		})
		return items
	}
	sel = sel.First()
	if sel.Length() == 0 {
		return nil
	}
	switch f.Type {
	case "html":
		h, _ := sel.Html()
		return strings.TrimSpace(h)
	case "attribute":
		v, ok := sel.Attr(f.Attribute)
		if !ok {
			return nil
		}
		if f.Attribute == "href" || f.Attribute == "src" {
			if u := d.resolve(v); u != "" {
				return u
			}
		}
		return v
	case "nested":
		return extractObject(d, sel, f.Fields)
	}
	return clean(sel.Text())
}
