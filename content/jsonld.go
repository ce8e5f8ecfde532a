package content

import (
	"encoding/json"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// jsonLD parses the document's JSON-LD blocks: each top-level object, the
// members of top-level arrays and of @graph, in document order. A block
// that is not JSON even after parseLD's repairs is skipped.
func jsonLD(doc *goquery.Document) []map[string]any {
	var out []map[string]any
	doc.Find(`script[type="application/ld+json" i]`).Each(func(_ int, s *goquery.Selection) {
		if v, ok := parseLD(s.Text()); ok {
			out = flattenLD(out, v)
		}
	})
	return out
}

// ldWrappers are what pages wrap a JSON-LD block in for old browsers
// and XHTML parsers, outermost first.
var ldWrappers = [][2]string{{"<!--", "-->"}, {"//<![CDATA[", "//]]>"}, {"<![CDATA[", "]]>"}}

// parseLD parses one JSON-LD block as search engines' structured-data
// parsers do: comment and CDATA wrappers and a trailing semicolon are
// dropped, and raw line breaks and tabs inside strings (invalid JSON that
// CMSs often write) read as spaces.
func parseLD(text string) (any, bool) {
	text = strings.TrimSpace(text)
	for _, w := range ldWrappers {
		if inner, ok := strings.CutPrefix(text, w[0]); ok {
			if inner, ok = strings.CutSuffix(strings.TrimSpace(inner), w[1]); ok {
				text = strings.TrimSpace(inner)
			}
		}
	}
	text = strings.TrimSuffix(text, ";")
	var v any
	if json.Unmarshal([]byte(text), &v) == nil {
		return v, true
	}
	spaced := strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, text)
	if json.Unmarshal([]byte(spaced), &v) == nil {
		return v, true
	}
	return nil, false
}

func flattenLD(out []map[string]any, v any) []map[string]any {
	switch v := v.(type) {
	case []any:
		for _, item := range v {
			out = flattenLD(out, item)
		}
	case map[string]any:
		graph, hasGraph := v["@graph"]
		if hasGraph {
			rest := make(map[string]any, len(v))
			for k, val := range v {
				if k != "@graph" && k != "@context" {
					rest[k] = val
				}
			}
			if len(rest) > 0 {
				out = append(out, v)
			}
			return flattenLD(out, graph)
		}
		out = append(out, v)
	}
	return out
}

// ldValue returns the first value at path ("publisher.logo") in the
// JSON-LD objects, in order; arrays on the way yield their first item,
// and references to nodes ({"@id": …}) the node they name.
func (x *extraction) ldValue(path string) any { return x.ldLookup(path, x.deref) }

// ldWritten is the first string at path as the objects write it, no
// reference followed: a publisher's name written in the article, not
// the name of a node it refers to.
func (x *extraction) ldWritten(path string) string {
	s, _ := x.ldLookup(path, func(v any) any { return v }).(string)
	return s
}

// ldLookup walks path in each object in turn, follow applied to each
// value on the way.
func (x *extraction) ldLookup(path string, follow func(any) any) any {
	for _, obj := range x.objects {
		var v any = obj
		for _, key := range strings.Split(path, ".") {
			v = firstItem(v)
			m, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = follow(m[key])
		}
		if v = firstItem(v); v != nil && v != "" {
			return v
		}
	}
	return nil
}

// deref replaces a reference to a node ({"@id": …}, perhaps with an
// @type) with the node of that id, wherever in the page's JSON-LD it is
// described: at the top level, in @graph, or nested in another node (as
// Yoast describes its logo inside the Organization and refers to it
// from the Organization's image).
func (x *extraction) deref(v any) any {
	m, ok := firstItem(v).(map[string]any)
	if !ok || !isReference(m) {
		return v
	}
	id, _ := m["@id"].(string)
	if node, ok := x.ldNodes()[x.ldID(id)]; ok {
		return node
	}
	return v
}

// isReference reports whether m only names a node: it has an @id and
// nothing else but an @type.
func isReference(m map[string]any) bool {
	if _, ok := m["@id"].(string); !ok {
		return false
	}
	for k := range m {
		if k != "@id" && k != "@type" {
			return false
		}
	}
	return true
}

// ldNodes indexes, once, every JSON-LD node that describes something
// (has more than an @id and @type) by its @id made absolute.
func (x *extraction) ldNodes() map[string]map[string]any {
	if x.nodes != nil {
		return x.nodes
	}
	x.nodes = map[string]map[string]any{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, item := range v {
				walk(item)
			}
		case map[string]any:
			if id, ok := v["@id"].(string); ok && !isReference(v) {
				key := x.ldID(id)
				if old, seen := x.nodes[key]; !seen || len(v) > len(old) {
					x.nodes[key] = v
				}
			}
			for _, item := range v {
				walk(item)
			}
		}
	}
	for _, obj := range x.objects {
		walk(obj)
	}
	return x.nodes
}

// ldID is an @id made absolute against the page's base URL, so that
// "#/schema/logo/image/" and its absolute form are the same node.
func (x *extraction) ldID(id string) string {
	id = strings.TrimSpace(id)
	if u, err := x.d.base().Parse(id); err == nil {
		return u.String() // the fragment kept: it is most of a node's name
	}
	return id
}

func firstItem(v any) any {
	if a, ok := v.([]any); ok {
		if len(a) == 0 {
			return nil
		}
		return a[0]
	}
	return v
}

// ld is a string value at path.
func (x *extraction) ld(path string) string {
	s, _ := x.ldValue(path).(string)
	return s
}

// ldName is the value at path as a name: a string, or an object's name.
func (x *extraction) ldName(path string) string {
	switch v := x.ldValue(path).(type) {
	case string:
		return v
	case map[string]any:
		s, _ := v["name"].(string)
		return s
	}
	return ""
}

// ldURL is the value at path as a URL: a string, or an object's url,
// contentUrl or (when it is not a reference left unresolved) @id.
func (x *extraction) ldURL(path string) string {
	switch v := x.ldValue(path).(type) {
	case string:
		return v
	case map[string]any:
		keys := []string{"url", "contentUrl", "@id"}
		if isReference(v) {
			keys = keys[:2]
		}
		for _, k := range keys {
			if s, ok := v[k].(string); ok && s != "" {
				return s
			}
		}
	}
	return ""
}
