// Package content reads what a web page says: its metadata (meta tags,
// Open Graph, Twitter Card, JSON-LD, icons, feeds, oEmbed) with headline
// fields chosen by a documented priority, and its main content (through
// a Go port of Mozilla's Readability) as HTML, Markdown, text or a JSON
// outline, plus CSS-schema extraction.
//
// It works on a parsed document and the URL it was served at; fetching
// the page (over the guarded HTTP client or in Chromium) is the
// caller's job, so the package makes no network request.
package content

import (
	"bytes"
	"io"
	"net/url"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html/charset"

	"github.com/sitediag/sitediag/internal/htmlx"
)

// Document is a parsed page and the URL it was served at.
type Document struct {
	// Doc is the parsed document.
	Doc *goquery.Document
	// URL is where the page was served, after any redirects.
	URL *url.URL
	// Charset is the character set the bytes were decoded from ("utf-8"
	// when the page was read as text already, as from a browser).
	Charset string
}

// Parse decodes body, whose Content-Type header is contentType (may be
// empty), to UTF-8 in the character set Chromium would choose (see
// detectCharset) and parses it.
func Parse(body []byte, contentType string, pageURL *url.URL) (*Document, error) {
	name := detectCharset(body, contentType)
	r, err := charset.NewReaderLabel(name, bytes.NewReader(body))
	if err != nil {
		r = bytes.NewReader(body)
	}
	return parseReader(r, pageURL, name)
}

// ParseText parses an already decoded document, such as the DOM a
// browser serialised.
func ParseText(text string, pageURL *url.URL) (*Document, error) {
	return parseReader(strings.NewReader(text), pageURL, "utf-8")
}

func parseReader(r io.Reader, pageURL *url.URL, cs string) (*Document, error) {
	doc, err := htmlx.Parse(r)
	if err != nil {
		return nil, err
	}
	return &Document{Doc: doc, URL: pageURL, Charset: cs}, nil
}

// base is the document's base URL (<base href> resolved against URL).
func (d *Document) base() *url.URL { return htmlx.BaseURL(d.Doc, d.URL) }

// resolve makes raw absolute against the base URL; "" when it is not an
// http(s) or data URL.
func (d *Document) resolve(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return ""
	}
	if strings.HasPrefix(raw, "data:") {
		return raw
	}
	u := htmlx.Resolve(d.base(), raw)
	if u == nil {
		return ""
	}
	return u.String()
}

// clean condenses white space and trims s.
func clean(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}
