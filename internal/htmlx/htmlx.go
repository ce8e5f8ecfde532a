// Package htmlx extracts what sitediag's tools need from HTML documents,
// on goquery: the URLs a page refers to, resolved the way a browser
// resolves them. It is shared by the link checker, the mixed-content
// check and the brand extractor, so it knows nothing of any of them.
package htmlx

import (
	"io"
	"net/url"
	"slices"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// Parse reads an HTML document. Malformed HTML is repaired as browsers
// do; only a failing reader is an error.
func Parse(r io.Reader) (*goquery.Document, error) {
	return goquery.NewDocumentFromReader(r)
}

// Link is one URL a document refers to.
type Link struct {
	// URL is absolute, http or https, without a fragment.
	URL *url.URL
	// Kind is the name of the element it was first found on ("a",
	// "img", "script", "link", …).
	Kind string
	// Attr is the attribute it came from ("href", "src", "srcset",
	// "data").
	Attr string
}

// linkAttrs are the elements and attributes Links reads.
var linkAttrs = []struct{ element, attr string }{
	{"a", "href"}, {"area", "href"},
	{"img", "src"}, {"img", "srcset"},
	{"script", "src"},
	{"link", "href"},
	{"iframe", "src"}, {"frame", "src"},
	{"source", "src"}, {"source", "srcset"},
	{"video", "src"}, {"audio", "src"}, {"track", "src"},
	{"object", "data"},
}

// hintRels are link relations that name an origin to warm up, not a
// resource: their href is not a link.
var hintRels = []string{"preconnect", "dns-prefetch"}

// Links returns the http and https URLs doc refers to, in document order,
// once each: a[href], area[href], img[src] and [srcset], script[src],
// link[href] (except rel=preconnect and dns-prefetch), iframe[src],
// frame[src], source[src] and [srcset], video[src], audio[src],
// track[src] and object[data]. Relative references are resolved against
// BaseURL(doc, page); fragments are dropped; other schemes (mailto:,
// tel:, javascript:, data:, …) and empty or unparsable values are
// skipped.
func Links(doc *goquery.Document, page *url.URL) []Link {
	base := BaseURL(doc, page)
	selectors := make([]string, len(linkAttrs))
	for i, la := range linkAttrs {
		selectors[i] = la.element + "[" + la.attr + "]"
	}
	seen := map[string]bool{}
	var out []Link
	add := func(kind, attr, raw string) {
		u := Resolve(base, raw)
		if u == nil || seen[u.String()] {
			return
		}
		seen[u.String()] = true
		out = append(out, Link{URL: u, Kind: kind, Attr: attr})
	}
	doc.Find(strings.Join(selectors, ", ")).Each(func(_ int, s *goquery.Selection) {
		kind := goquery.NodeName(s)
		if kind == "link" && hasRel(s, hintRels) {
			return
		}
		for _, la := range linkAttrs {
			if la.element != kind {
				continue
			}
			v, ok := s.Attr(la.attr)
			if !ok {
				continue
			}
			if la.attr == "srcset" {
				for _, candidate := range SrcsetURLs(v) {
					add(kind, la.attr, candidate)
				}
				continue
			}
			add(kind, la.attr, v)
		}
	})
	return out
}

func hasRel(s *goquery.Selection, rels []string) bool {
	for _, r := range strings.Fields(strings.ToLower(s.AttrOr("rel", ""))) {
		if slices.Contains(rels, r) {
			return true
		}
	}
	return false
}

// BaseURL is the URL doc's relative references resolve against: the
// first <base href>, itself resolved against page, or page.
func BaseURL(doc *goquery.Document, page *url.URL) *url.URL {
	href, ok := doc.Find("base[href]").First().Attr("href")
	if !ok {
		return page
	}
	base, err := page.Parse(strings.TrimSpace(href))
	if err != nil {
		return page
	}
	return base
}

// Resolve resolves raw (an attribute value) against base and returns it
// without its fragment, or nil when it is empty, does not parse, or is
// not http or https.
func Resolve(base *url.URL, raw string) *url.URL {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil
	}
	u, err := base.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil
	}
	u.Fragment, u.RawFragment = "", ""
	return u
}

// SrcsetURLs returns the URLs of a srcset attribute ("a.png 1x, b.png
// 2x"), following the HTML parsing rules: candidates are separated by
// commas, a URL ends at whitespace, and trailing commas on a URL end its
// candidate.
func SrcsetURLs(srcset string) []string {
	var out []string
	s := srcset
	for {
		s = strings.TrimLeft(s, " \t\n\r\f,")
		if s == "" {
			return out
		}
		end := strings.IndexAny(s, " \t\n\r\f")
		if end < 0 {
			end = len(s)
		}
		candidate := s[:end]
		s = s[end:]
		trimmed := strings.TrimRight(candidate, ",")
		if trimmed != "" {
			out = append(out, trimmed)
		}
		if len(trimmed) < len(candidate) {
			continue // the commas ended this candidate
		}
		s = skipDescriptors(s)
	}
}

// skipDescriptors drops a candidate's descriptors: everything up to the
// first comma outside parentheses.
func skipDescriptors(s string) string {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth = max(depth-1, 0)
		case ',':
			if depth == 0 {
				return s[i:]
			}
		}
	}
	return ""
}
