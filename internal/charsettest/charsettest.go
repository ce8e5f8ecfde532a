// Package charsettest builds the pages the character-set tests read:
// one French page (and a Polish one) in the character sets, and with the
// declarations, whose reading Chromium decides when the page is served
// with no charset in its Content-Type.
package charsettest

import (
	"fmt"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// Page is one test page.
type Page struct {
	// Name is the page's file name, such as "utf8-late-meta.html".
	Name string
	// Body is the page in its character set.
	Body []byte
}

// Pages are the test pages:
//   - utf8-late-meta.html and latin2-late-meta.html declare their set
//     past the first 1024 bytes, still in the head;
//   - utf8-no-meta.html, utf8-short-no-meta.html and cp1252-no-meta.html
//     declare none;
//   - cp1252-meta-in-body.html declares iso-8859-2 in its body, past the
//     first 1024 bytes.
func Pages() []Page {
	const cafe, cafeText = "Café – à la carte", "Crème brûlée, œufs en meurette et café noir."
	return []Page{
		{"utf8-late-meta.html", []byte(page(`<meta charset="utf-8">`, cafe, "", cafeText))},
		{"latin2-late-meta.html", encode(charmap.ISO8859_2, page(`<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-2">`,
			"Łódź - przewodnik", "", "Zabytki, żurek i pierogi w sercu miasta."))},
		{"utf8-no-meta.html", []byte(page("", cafe, "", cafeText))},
		{"utf8-short-no-meta.html", []byte("<!doctype html>\n<html>\n<head>\n<title>" + cafe +
			"</title>\n</head>\n<body>\n<p>Crème brûlée et café noir.</p>\n</body>\n</html>\n")},
		{"cp1252-no-meta.html", encode(charmap.Windows1252, page("", cafe, "", cafeText))},
		{"cp1252-meta-in-body.html", encode(charmap.Windows1252, page("", cafe, `<meta charset="iso-8859-2">`, cafeText))},
	}
}

// page is a page whose head holds more than 1024 bytes of style before
// headMeta (a line, when not empty) and its title; bodyMeta (likewise)
// opens its body, before the heading and the paragraph text.
func page(headMeta, title, bodyMeta, text string) string {
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"fr\">\n<head>\n<style>\n")
	for i := range 40 {
		fmt.Fprintf(&b, ".rule-%d { margin: 0 %dpx; padding: 2px; color: #333; }\n", i, i)
	}
	b.WriteString("</style>\n")
	line(&b, headMeta)
	fmt.Fprintf(&b, "<title>%s</title>\n</head>\n<body>\n", title)
	line(&b, bodyMeta)
	fmt.Fprintf(&b, "<h1>%s</h1>\n<p>%s</p>\n</body>\n</html>\n", title, text)
	return b.String()
}

// line writes s and a newline to b, unless s is empty.
func line(b *strings.Builder, s string) {
	if s != "" {
		b.WriteString(s + "\n")
	}
}

// encode encodes s, which the character map can encode whole, in it.
func encode(cm *charmap.Charmap, s string) []byte {
	b, err := cm.NewEncoder().Bytes([]byte(s))
	if err != nil {
		panic(fmt.Sprintf("charsettest: %v", err))
	}
	return b
}
