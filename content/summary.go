package content

import (
	"fmt"
	"sort"
	"strings"
)

// Markdown is a readable summary of m: the headline fields, then the
// icons, feeds and the raw Open Graph and Twitter Card properties.
func (m *Metadata) Markdown() string {
	var b strings.Builder
	title := m.Title
	if title == "" {
		title = m.URL
	}
	fmt.Fprintf(&b, "# %s\n", title)
	if m.Description != "" {
		fmt.Fprintf(&b, "\n%s\n", m.Description)
	}
	if m.Image != "" {
		fmt.Fprintf(&b, "\n![%s](%s)\n", strings.ReplaceAll(title, "]", ""), m.Image)
	}
	b.WriteString("\n")
	for _, f := range []struct{ name, value string }{
		{"URL", m.URL}, {"Author", m.Author}, {"Published", m.Date}, {"Modified", m.DateModified},
		{"Publisher", m.Publisher}, {"Logo", m.Logo}, {"Language", m.Lang}, {"Canonical", m.Canonical},
		{"Theme colour", m.ThemeColor}, {"Keywords", strings.Join(m.Keywords, ", ")},
	} {
		if f.value != "" {
			fmt.Fprintf(&b, "- **%s:** %s\n", f.name, f.value)
		}
	}
	if len(m.Icons) > 0 {
		b.WriteString("\n## Icons\n\n")
		for _, i := range m.Icons {
			fmt.Fprintf(&b, "- %s (%s%s)\n", i.URL, i.Rel, prefixed(" ", i.Sizes))
		}
	}
	if len(m.Feeds) > 0 {
		b.WriteString("\n## Feeds\n\n")
		for _, f := range m.Feeds {
			fmt.Fprintf(&b, "- %s (%s)%s\n", f.URL, f.Type, prefixed(" ", f.Title))
		}
	}
	for _, section := range []struct {
		name  string
		props map[string]any
	}{{"Open Graph", m.Sources.OpenGraph}, {"Twitter Card", m.Sources.Twitter}} {
		if len(section.props) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n", section.name)
		keys := make([]string, 0, len(section.props))
		for k := range section.props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "- **%s:** %s\n", k, propText(section.props[k]))
		}
	}
	return b.String()
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// propText writes a raw property value on one line.
func propText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []string:
		return strings.Join(v, "; ")
	case []map[string]string:
		parts := make([]string, 0, len(v))
		for _, m := range v {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var kv []string
			for _, k := range keys {
				kv = append(kv, k+"="+m[k])
			}
			parts = append(parts, strings.Join(kv, " "))
		}
		return strings.Join(parts, "; ")
	}
	return fmt.Sprint(v)
}
