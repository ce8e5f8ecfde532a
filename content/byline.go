package content

import (
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// maxAuthor is the longest author name kept (metascraper's bound).
const maxAuthor = 128

// twoWords is metascraper's strict rule for a name read from a loosely
// chosen element (a byline, an author class): at least two words.
var twoWords = regexp.MustCompile(`^\S+\s+\S+`)

// roleSuffix is a byline's trailing role ("Gina Hall, Contributor",
// "Sam Reed Staff Writer").
var roleSuffix = regexp.MustCompile(`(?i)(?:\s*[,|·•–—-]\s*|\s+)(?:senior |staff |contributing |guest |chief |special )?` +
	`(?:contributor|writer|reporter|correspondent|editor|columnist|staff|journalist)s?$`)

// bylineLead is what opens a byline before the name.
var bylineLead = regexp.MustCompile(`(?i)^(?:written\s+by|posted\s+by|words\s+by|story\s+by|by)[\s:]+|^@\s*`)

// bylineJoin is what a byline puts between the name and a date.
var bylineJoin = regexp.MustCompile(`(?i)(?:\s*[,|·•–—-]\s*|\s+(?:on|published|updated|posted)\s*:?\s*)+$`)

// cleanAuthor makes a name of an author value a page declares (JSON-LD,
// meta author): white space condensed and a leading "By" dropped, the
// rest kept as written ("Reuters Staff", "The Editors"). A URL, or a
// value longer than maxAuthor, is no name ("").
func cleanAuthor(v string) string {
	v = clean(v)
	if v == "" || len(v) > maxAuthor || isURLValue(v) {
		return ""
	}
	return clean(bylineLead.ReplaceAllString(v, ""))
}

// bylineName makes a name of the text of a byline or author element,
// which often goes on past the name: cleanAuthor, then a trailing date
// ("Lydia Dishman 05.24.16 5:42 AM") and a trailing role ("Gina Hall,
// Contributor") dropped, the role only when a name of two words or more
// is left ("Reuters Staff" stays whole).
func bylineName(v string) string {
	v = cleanAuthor(v)
	if _, span, ok := findDate(v); ok && span[0] > 0 {
		v = strings.TrimSpace(v[:span[0]])
		v = bylineJoin.ReplaceAllString(v, "")
	}
	if name := clean(strings.Trim(roleSuffix.ReplaceAllString(v, ""), " ,|·•–—-")); twoWords.MatchString(name) {
		v = name
	}
	return clean(strings.Trim(v, " ,|·•–—-"))
}

// strict keeps a name of at least two words.
func strict(v string) string {
	if !twoWords.MatchString(v) {
		return ""
	}
	return v
}

func isURLValue(v string) bool {
	l := strings.ToLower(v)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "www.")
}

// filterText is metascraper's $filter: the condensed text of the first
// element selector matches that has any.
func (x *extraction) filterText(selector string) string {
	return x.firstText(selector, func(s *goquery.Selection) string { return clean(s.Text()) })
}

// authorText is filterText cleaned as a byline name (bylineName). Of
// an element selector matches, the innermost match with text is read (in <div
// class="author-box"><span class="author-name">Kelly Sheridan</span>
// <span>News</span></div>, the name's span), and the words of separate
// elements are kept apart.
func (x *extraction) authorText(selector string) string {
	return bylineName(x.firstText(selector, func(s *goquery.Selection) string {
		for {
			inner := s.Find(selector).FilterFunction(func(_ int, e *goquery.Selection) bool { return spacedText(e) != "" })
			if inner.Length() == 0 {
				return spacedText(s)
			}
			s = inner.First()
		}
	}))
}

func (x *extraction) firstText(selector string, text func(*goquery.Selection) string) string {
	var out string
	x.d.Doc.Find(selector).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		out = text(s)
		return out == ""
	})
	return out
}

// spacedText is the condensed text of s's nodes with a space between
// the texts of separate elements; scripts and styles are left out.
func spacedText(s *goquery.Selection) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			return
		case html.ElementNode:
			switch n.Data {
			case "script", "style", "noscript", "template":
				return
			}
			b.WriteByte(' ')
			defer b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range s.Nodes {
		walk(n)
	}
	return clean(b.String())
}

// bylineAuthor is the text of the first byline element that has any,
// unless that text is only a date (metascraper's last author rule).
func (x *extraction) bylineAuthor() string {
	v := x.authorText(`[class*="byline" i]`)
	if _, span, ok := findDate(v); ok && span[0] == 0 {
		return ""
	}
	return v
}
