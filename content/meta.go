package content

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// Metadata is what a page says about itself. The headline fields (Title
// to Lang) are each chosen from the first source, in the documented
// priority, that gives a usable value; Sources keeps every raw source so
// a caller can choose differently. URLs are absolute (resolved against
// <base> and the final URL), and Image, Logo and a URL the page gives
// are normalized as metascraper normalizes them (lower-case host, no
// default port, one slash for many, no utm_ parameters); dates are RFC
// 3339 in UTC.
type Metadata struct {
	// Title: og:title, twitter:title, <title>, JSON-LD headline,
	// .post-title, .entry-title, h1[class*=title], the first <h1>.
	Title string `json:"title"`
	// Description: og:description, twitter:description, meta
	// description, itemprop description, JSON-LD description; a news
	// dateline ("WASHINGTON — ") dropped, and "..." ending it written
	// "…".
	Description string `json:"description"`
	// Image: og:image (secure_url, url), twitter:image, itemprop image,
	// JSON-LD image, link rel=image_src, the first image of the article,
	// then the first visible image.
	Image string `json:"image"`
	// Author: JSON-LD author (or a product's brand), meta author,
	// article:author (unless a URL), itemprop author, rel=author, an
	// author or byline element.
	Author string `json:"author"`
	// Date is the publication date: JSON-LD datePublished,
	// article:published_time, og:published_time, itemprop
	// datePublished, meta date names, the first <time datetime>.
	Date string `json:"date"`
	// DateModified: JSON-LD dateModified, article:modified_time,
	// og:updated_time, itemprop dateModified.
	DateModified string `json:"dateModified"`
	// Publisher: the JSON-LD publisher's name written in the page,
	// og:site_name, then the name of the node a JSON-LD publisher
	// refers to ({"@id": …}, as Yoast writes it: og:site_name, the name
	// the site displays, comes first), application-name,
	// apple-mobile-web-app-title, an App Links app_name, meta
	// publisher, the app name of twitter:app, the text or image alt of
	// the site's logo, then the last part of a <title> such as
	// "Story | Site".
	Publisher string `json:"publisher"`
	// Logo: og:logo, itemprop logo, JSON-LD logo, publisher.logo or
	// brand.logo, then the best icon as metascraper-logo-favicon ranks
	// them (see bestIcon), then (when the caller probes for it) the
	// site's /favicon.ico or /favicon.png.
	Logo string `json:"logo"`
	// logoFromIcons says Logo was chosen among Icons (so AddIcons
	// chooses again).
	logoFromIcons bool
	// URL: og:url, twitter:url, link canonical, the x-default
	// alternate, al:web:url, else the final URL (as fetched, not
	// normalized).
	URL string `json:"url"`
	// Lang: <html lang>, Content-Language, og:locale, JSON-LD
	// inLanguage, as a BCP 47 tag.
	Lang string `json:"lang"`

	// Canonical is link rel=canonical.
	Canonical string `json:"canonical"`
	// Charset is the character set the page was decoded from.
	Charset string `json:"charset"`
	// ThemeColor is meta theme-color (the first one).
	ThemeColor string `json:"themeColor"`
	// Keywords are meta keywords, split on commas.
	Keywords []string `json:"keywords"`
	// Icons are the page's icons (favicon, apple-touch-icon, mask-icon,
	// msapplication tile images) and, when the caller adds them, its
	// manifest's and its /favicon.ico.
	Icons []Icon `json:"icons"`
	// Manifest is link rel=manifest.
	Manifest string `json:"manifest"`
	// Feeds are RSS, Atom and JSON feeds (link rel=alternate).
	Feeds []Alternate `json:"feeds"`
	// OEmbed are oEmbed endpoints (link rel=alternate, type
	// application/json+oembed or text/xml+oembed).
	OEmbed []Alternate `json:"oembed"`

	Sources Sources `json:"sources"`
}

// Icon is one icon of the page.
type Icon struct {
	URL   string `json:"url"`
	Rel   string `json:"rel"`
	Sizes string `json:"sizes,omitempty"`
	Type  string `json:"type,omitempty"`
	// Source is "html", "manifest", or "default" (/favicon.ico or
	// /favicon.png, found by requesting it).
	Source string `json:"source"`
}

// Alternate is a link to another representation of the page.
type Alternate struct {
	URL   string `json:"url"`
	Type  string `json:"type"`
	Title string `json:"title,omitempty"`
}

// Sources are the raw sources the headline fields are chosen from.
type Sources struct {
	// OpenGraph maps each og:, article:, book:, profile:, product: …
	// property (without "og:") to its value, or to an array of values
	// when it repeats; image, video and audio are always arrays of
	// objects with their structured properties (url, secure_url, type,
	// width, height, alt).
	OpenGraph map[string]any `json:"openGraph"`
	// Twitter maps each twitter: name (without "twitter:") to its value,
	// or an array when it repeats.
	Twitter map[string]any `json:"twitter"`
	// JSONLD are the JSON-LD objects of the page, @graph members
	// flattened into the list.
	JSONLD []map[string]any `json:"jsonLd"`
	// Meta maps every other meta name, itemprop and http-equiv to its
	// value (an array when it repeats).
	Meta map[string]any `json:"meta"`
	// Document are facts read from the document itself.
	Document DocumentFacts `json:"document"`
}

// DocumentFacts are read from the markup rather than from metadata.
type DocumentFacts struct {
	Title string `json:"title"`
	H1    string `json:"h1"`
	Lang  string `json:"lang"`
}

// ExtractMetadata reads d's metadata.
func ExtractMetadata(d *Document) *Metadata {
	x := newExtraction(d)
	m := &Metadata{
		Charset:  d.Charset,
		Sources:  x.sources,
		Keywords: []string{},
		Icons:    x.icons(),
		Feeds:    x.alternates(isFeedType),
		OEmbed:   x.alternates(func(t string) bool { return strings.HasSuffix(t, "+oembed") }),
	}
	m.Canonical = d.resolve(x.linkHref("canonical"))
	m.Manifest = d.resolve(x.linkHref("manifest"))
	m.ThemeColor = x.metaName("theme-color")
	for _, k := range strings.Split(x.metaName("keywords"), ",") {
		if k = clean(k); k != "" {
			m.Keywords = append(m.Keywords, k)
		}
	}
	m.Title = first(x.og("title"), x.twitter("title"), x.sources.Document.Title, x.ld("headline"), x.text(".post-title"),
		x.text(".entry-title"), x.text("h1[class*=title i]"), x.sources.Document.H1)
	m.Description = summary(first(x.og("description"), x.twitter("description"), x.metaName("description"),
		x.itemprop("description"), x.ld("description")))
	m.Image = firstURL(d, x.ogMedia("image"), x.twitter("image:src"), x.twitter("image"), x.itemprop("image"),
		x.attr("img[itemprop=image]", "src"), x.ldURL("image"), x.linkHref("image_src"), x.attr("article img[src]", "src"),
		x.attr("#content img[src]", "src"), x.attr(`img[alt*=author i]`, "src"), x.attr(`img[src]:not([aria-hidden="true"])`, "src"))
	m.Author = first(cleanAuthor(x.ldName("author")), cleanAuthor(x.ldName("brand")), cleanAuthor(x.attr(`meta[name="author" i]`, "content")),
		cleanAuthor(x.property("article:author")), x.authorText(`[itemprop*="author" i] [itemprop="name"]`),
		x.authorText(`[itemprop*="author" i]`), x.authorText(`[rel="author"]`), strict(x.authorText(`a[class*="author" i]`)),
		strict(x.authorText(`[class*="author" i] a`)), strict(x.authorText(`a[href*="/author/" i]`)),
		x.authorText(`a[class*="screenname" i]`), strict(x.authorText(`[class*="author" i]`)), strict(x.bylineAuthor()))
	m.Date = firstDate(x.ld("datePublished"), x.ld("dateCreated"), x.attr(`meta[property*="published_time" i]`, "content"),
		x.property("article:published_time"), x.property("og:published_time"),
		x.attr(`[itemprop="datepublished" i]`, "content"), x.attr(`[itemprop="datepublished" i]`, "title"),
		x.filterText(`[class*="publish" i]`), x.attr(`meta[name="date" i]`, "content"), x.metaName("pubdate"),
		x.metaName("publish-date"), x.metaName("dc.date"), x.attr(`[itemprop*="date" i]`, "content"),
		x.attr(`[itemprop*="date" i]`, "title"), x.attr(`time[itemprop*="date" i]`, "datetime"), x.attr("time[datetime]", "datetime"),
		x.filterText(`[class*="byline" i]`), x.filterText(`[id*="date" i]`), x.filterText(`[class*="date" i]`),
		x.filterText(`[class*="time" i]`))
	m.DateModified = firstDate(x.ld("dateModified"), x.attr(`meta[property*="modified_time" i]`, "content"),
		x.property("article:modified_time"), x.property("og:updated_time"), x.attr(`[itemprop*="datemodified" i]`, "content"),
		x.metaName("last-modified"))
	m.Publisher = first(x.ldWritten("publisher.name"), x.og("site_name"), x.ldName("publisher"),
		x.attr(`meta[name*="application-name" i]`, "content"), x.attr(`meta[name*="app-title" i]`, "content"),
		x.appName(), x.metaName("publisher"), x.twitter("app:name:iphone"), x.twitter("app:name:ipad"),
		x.twitter("app:name:googleplay"), x.text("#logo, .logo"), x.text("a[class*=brand i]"), x.attr("[class*=logo i] img[alt]", "alt"),
		titleSuffix(x.sources.Document.Title))
	m.Logo = firstURL(d, x.og("logo"), x.itemprop("logo"), x.attr("img[itemprop=logo]", "src"), x.ldURL("logo"),
		x.ldURL("publisher.logo"), x.ldURL("brand.logo"))
	if m.Logo == "" {
		m.Logo, m.logoFromIcons = bestIcon(m.Icons), true
	}
	m.URL = first(firstURL(d, x.og("url"), x.twitter("url"), x.linkHref("canonical"),
		x.attr(`link[rel~=alternate i][hreflang=x-default i]`, "href"), x.property("al:web:url")), d.resolve(d.URL.String()))
	m.Lang = first(x.sources.Document.Lang, x.httpEquiv("content-language"), strings.ReplaceAll(x.og("locale"), "_", "-"),
		x.ld("inLanguage"))
	return m
}

// Empty reports whether nothing at all was found: no headline field and
// no raw source.
func (m *Metadata) Empty() bool {
	s := m.Sources
	return m.Title == "" && m.Description == "" && m.Image == "" && m.Author == "" && m.Date == "" &&
		m.Publisher == "" && m.Canonical == "" && len(m.Icons) == 0 && len(m.Feeds) == 0 &&
		len(s.OpenGraph) == 0 && len(s.Twitter) == 0 && len(s.JSONLD) == 0 && len(s.Meta) == 0
}

// first returns the first non-empty value, cleaned.
func first(values ...string) string {
	for _, v := range values {
		if v = clean(v); v != "" {
			return v
		}
	}
	return ""
}

// firstURL returns the first value that resolves to an absolute URL,
// normalized (see normalURL).
func firstURL(d *Document, values ...string) string {
	for _, v := range values {
		if u := d.resolve(v); u != "" {
			return normalURL(u)
		}
	}
	return ""
}

// firstDate returns the first value that parses as a date, in RFC 3339
// (UTC).
func firstDate(values ...string) string {
	for _, v := range values {
		if t, ok := parseDate(v); ok {
			return t.UTC().Format(time.RFC3339)
		}
	}
	return ""
}

// dateline is a news summary's opening place name in capitals
// ("WASHINGTON — The Senate…"), not part of the summary.
var dateline = regexp.MustCompile(`^[A-Z\s]+\s+[-—–]\s+`)

// cutShort is the end of a summary cut short with "..." (or "..").
var cutShort = regexp.MustCompile(`\s?\.\.\.?$`)

// summary is a description as metascraper gives it: without a news
// dateline, and ending in "…" where it was cut short with dots.
func summary(description string) string {
	return cutShort.ReplaceAllString(dateline.ReplaceAllString(description, ""), "…")
}

// titleSuffix is the site's name a title ends with ("Story | Site",
// "Story - Site", "Story – Site"), or "".
func titleSuffix(title string) string {
	best := -1
	sep := ""
	for _, s := range []string{" | ", " - ", " – ", " — ", " · "} {
		if i := strings.LastIndex(title, s); i > best {
			best, sep = i, s
		}
	}
	if best < 0 {
		return ""
	}
	suffix := strings.TrimSpace(title[best+len(sep):])
	if len(suffix) > 60 {
		return ""
	}
	return suffix
}

func isFeedType(t string) bool {
	return slices.Contains([]string{"application/rss+xml", "application/atom+xml", "application/feed+json",
		"application/json+feed", "application/rdf+xml"}, t)
}

// extraction holds a document's raw sources while the headline fields
// are chosen.
type extraction struct {
	d       *Document
	sources Sources
	// props are the og:/article:… properties in document order.
	props []prop
	// objects are the JSON-LD objects; nodes indexes every node in
	// them by @id (see ldNodes).
	objects []map[string]any
	nodes   map[string]map[string]any
}

type prop struct{ key, value string }

func newExtraction(d *Document) *extraction {
	x := &extraction{d: d}
	s := &x.sources
	s.OpenGraph, s.Twitter, s.Meta = map[string]any{}, map[string]any{}, map[string]any{}
	d.Doc.Find("meta").Each(func(_ int, m *goquery.Selection) {
		value, ok := m.Attr("content")
		if !ok {
			if cs, ok := m.Attr("charset"); ok {
				add(s.Meta, "charset", cs)
			}
			return
		}
		value = strings.TrimSpace(value)
		property := strings.ToLower(strings.TrimSpace(m.AttrOr("property", "")))
		name := strings.ToLower(strings.TrimSpace(m.AttrOr("name", "")))
		switch {
		case isOGProperty(property):
			x.props = append(x.props, prop{property, value})
		case strings.HasPrefix(name, "twitter:"), strings.HasPrefix(property, "twitter:"):
			add(s.Twitter, strings.TrimPrefix(name+property, "twitter:"), value)
		case isOGProperty(name): // og: written with name= (common)
			x.props = append(x.props, prop{name, value})
		case name != "":
			add(s.Meta, name, value)
		case property != "":
			add(s.Meta, property, value)
		case m.AttrOr("itemprop", "") != "":
			add(s.Meta, "itemprop:"+m.AttrOr("itemprop", ""), value)
		case m.AttrOr("http-equiv", "") != "":
			add(s.Meta, "http-equiv:"+strings.ToLower(m.AttrOr("http-equiv", "")), value)
		}
	})
	s.OpenGraph = openGraph(x.props)
	x.objects = jsonLD(d.Doc)
	s.JSONLD = x.objects
	if s.JSONLD == nil {
		s.JSONLD = []map[string]any{}
	}
	s.Document = DocumentFacts{
		Title: clean(d.Doc.Find("title").First().Text()),
		H1:    clean(d.Doc.Find("h1").First().Text()),
		Lang:  strings.TrimSpace(d.Doc.Find("html").AttrOr("lang", "")),
	}
	return x
}

// isOGProperty reports whether a meta property belongs to Open Graph or
// its vertical namespaces.
func isOGProperty(p string) bool {
	for _, ns := range []string{"og:", "article:", "book:", "profile:", "product:", "music:", "video:", "fb:", "al:"} {
		if strings.HasPrefix(p, ns) {
			return true
		}
	}
	return false
}

// add sets key to value, or appends value when key repeats.
func add(m map[string]any, key, value string) {
	switch old := m[key].(type) {
	case nil:
		m[key] = value
	case string:
		m[key] = []string{old, value}
	case []string:
		m[key] = append(old, value)
	}
}

// openGraph groups the properties: og:image, og:video and og:audio start
// a new object that their structured properties (og:image:width, …)
// fill; other properties are a value or an array of values.
func openGraph(props []prop) map[string]any {
	out := map[string]any{}
	media := map[string][]map[string]string{}
	for _, p := range props {
		key := strings.TrimPrefix(p.key, "og:")
		kind, sub, structured := strings.Cut(key, ":")
		if key == p.key || (kind != "image" && kind != "video" && kind != "audio") {
			add(out, key, p.value)
			continue
		}
		list := media[kind]
		if !structured {
			sub = "url"
		}
		if n := len(list); n == 0 || (sub == "url" && list[n-1]["url"] != "") {
			list = append(list, map[string]string{})
		}
		list[len(list)-1][sub] = p.value
		media[kind] = list
	}
	for kind, list := range media {
		out[kind] = list
	}
	return out
}

// og returns the first og:<key> value.
func (x *extraction) og(key string) string { return x.property("og:" + key) }

// ogMedia returns the first og:<kind> media's URL (secure_url first).
func (x *extraction) ogMedia(kind string) string {
	list, _ := x.sources.OpenGraph[kind].([]map[string]string)
	for _, m := range list {
		if v := first(m["secure_url"], m["url"]); v != "" {
			return v
		}
	}
	return ""
}

// property returns the first value of an Open Graph property.
func (x *extraction) property(key string) string {
	for _, p := range x.props {
		if p.key == key && strings.TrimSpace(p.value) != "" {
			return p.value
		}
	}
	return ""
}

// appName is the app's name an App Links property gives
// (al:ios:app_name, al:android:app_name, …), the first in the page.
func (x *extraction) appName() string {
	for _, p := range x.props {
		if strings.HasSuffix(p.key, ":app_name") && strings.TrimSpace(p.value) != "" {
			return p.value
		}
	}
	return ""
}

func (x *extraction) twitter(key string) string   { return firstOf(x.sources.Twitter[key]) }
func (x *extraction) metaName(name string) string { return firstOf(x.sources.Meta[name]) }
func (x *extraction) itemprop(name string) string {
	if v := firstOf(x.sources.Meta["itemprop:"+name]); v != "" {
		return v
	}
	return x.attr("[itemprop="+name+"][content]", "content")
}
func (x *extraction) httpEquiv(name string) string {
	return firstOf(x.sources.Meta["http-equiv:"+name])
}

// firstOf is a string source value, or the first of an array.
func firstOf(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []string:
		return first(v...)
	}
	return ""
}

// linkHref returns the href of the first <link> whose rel has rel.
func (x *extraction) linkHref(rel string) string {
	return x.attr("link[rel~="+rel+" i][href]", "href")
}

// attr returns the attribute of the first element selector matches.
func (x *extraction) attr(selector, name string) string {
	return x.d.Doc.Find(selector).First().AttrOr(name, "")
}

// text returns the condensed text of the first element selector
// matches that has some, when it is short (as titles and names are).
func (x *extraction) text(selector string) string {
	var out string
	x.d.Doc.Find(selector).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		t := clean(s.Text())
		if t != "" && len(t) < 100 {
			out = t
			return false
		}
		return true
	})
	return out
}

// icons lists link rel=icon, shortcut icon, apple-touch-icon(-precomposed)
// and mask-icon, in document order, then the msapplication tile images.
func (x *extraction) icons() []Icon {
	icons := []Icon{}
	x.d.Doc.Find("link[rel][href]").Each(func(_ int, l *goquery.Selection) {
		rel := strings.ToLower(clean(l.AttrOr("rel", "")))
		if !slices.ContainsFunc(strings.Fields(rel), func(r string) bool {
			return r == "icon" || strings.HasPrefix(r, "apple-touch-icon") || r == "mask-icon"
		}) {
			return
		}
		if u := x.d.resolve(l.AttrOr("href", "")); u != "" {
			icons = append(icons, Icon{URL: u, Rel: rel, Sizes: l.AttrOr("sizes", ""), Type: l.AttrOr("type", ""), Source: "html"})
		}
	})
	return append(icons, x.tileIcons()...)
}

// alternates lists link rel=alternate whose type matches.
func (x *extraction) alternates(match func(string) bool) []Alternate {
	out := []Alternate{}
	x.d.Doc.Find("link[rel~=alternate i][href][type]").Each(func(_ int, l *goquery.Selection) {
		t := strings.ToLower(strings.TrimSpace(l.AttrOr("type", "")))
		if !match(t) {
			return
		}
		if u := x.d.resolve(l.AttrOr("href", "")); u != "" {
			out = append(out, Alternate{URL: u, Type: t, Title: clean(l.AttrOr("title", ""))})
		}
	})
	return out
}
