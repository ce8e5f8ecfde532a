package brand

import (
	"context"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/sitediag/sitediag/content"
)

// Enricher adds what a language model (or any other source) can say of
// the company to an enriched record, given the site's own text. The
// default uses none: Enrich's extractive heuristics are all there is.
type Enricher interface {
	Enrich(ctx context.Context, r *Record, siteText string) error
}

// Enrich adds Company to r: facts from the page's JSON-LD Organization
// or LocalBusiness (foundingDate → FoundedYear, address → Location,
// numberOfEmployees → EmployeesRange, tickerSymbol → StockTicker,
// @type → Kind) and, from the site's own text, these documented
// extractive heuristics:
//
//   - Industry: the industry of industryWords with the most keyword hits
//     in the title, description and headings (at least two).
//   - Summary: the description, else the hero's first paragraph.
//   - TargetAudience: the phrase after "for" in the tagline, title or
//     description ("Invoicing for freelancers" → "freelancers");
//     TargetAudienceSegments its parts split on "and" and commas.
//   - BrandVoice: up to three of direct (addresses the reader as "you"
//     often), concise (short sentences), enthusiastic (exclamations),
//     formal (no contractions, long sentences), technical (code, API or
//     numbers with units).
//   - UseCases: the feature headings (h3 in the main content, else h2),
//     up to six.
//
// Nothing is invented: a field with no source stays empty.
func Enrich(r *Record, d *content.Document) {
	m := content.ExtractMetadata(d)
	org := organization(m.Sources.JSONLD)
	c := &Company{Kind: orgKind(org), StockTicker: str(org["tickerSymbol"]), TargetAudienceSegments: []string{},
		BrandVoice: []string{}, UseCases: []string{}}
	if y := yearRe.FindString(str(org["foundingDate"])); y != "" {
		c.FoundedYear, _ = strconv.Atoi(y)
	}
	c.Location = location(org["address"])
	c.EmployeesRange = employees(org["numberOfEmployees"])
	c.Industry = first(str(org["industry"]), industry(m.Title+" "+m.Description+" "+d.Doc.Find("h1, h2, h3").Text()))
	c.Summary = first(m.Description, strings.Join(strings.Fields(d.Doc.Find("main p, .hero p, p").First().Text()), " "))
	for _, s := range []string{r.Tagline, m.Title, m.Description} {
		if a := audience(s); a != "" {
			c.TargetAudience = a
			c.TargetAudienceSegments = segments(a)
			break
		}
	}
	c.BrandVoice = voice(siteText(d))
	c.UseCases = useCases(d)
	r.Company = c
}

// SiteText is the page's visible text, for an Enricher.
func SiteText(d *content.Document) string { return siteText(d) }

func siteText(d *content.Document) string {
	body := d.Doc.Find("body").Clone()
	body.Find("script, style, noscript, nav, footer").Remove()
	return strings.Join(strings.Fields(body.Text()), " ")
}

var yearRe = regexp.MustCompile(`\b(1[6-9]\d\d|20\d\d)\b`)

func location(v any) *Location {
	switch a := v.(type) {
	case string:
		if a != "" {
			return &Location{City: strings.TrimSpace(a)}
		}
	case []any:
		if len(a) > 0 {
			return location(a[0])
		}
	case map[string]any:
		l := &Location{City: str(a["addressLocality"]), State: str(a["addressRegion"])}
		switch c := a["addressCountry"].(type) {
		case string:
			if len(c) == 2 {
				l.CountryCode = strings.ToUpper(c)
			} else {
				l.Country = c
			}
		case map[string]any:
			l.Country = str(c["name"])
			if code := str(c["identifier"]); len(code) == 2 {
				l.CountryCode = strings.ToUpper(code)
			}
		}
		if *l != (Location{}) {
			return l
		}
	}
	return nil
}

// employees reads numberOfEmployees: a number, or a QuantitativeValue
// with value or minValue/maxValue.
func employees(v any) string {
	num := func(x any) string {
		switch n := x.(type) {
		case float64:
			return strconv.Itoa(int(n))
		case string:
			return strings.TrimSpace(n)
		}
		return ""
	}
	switch e := v.(type) {
	case float64, string:
		return num(e)
	case map[string]any:
		if v := num(e["value"]); v != "" {
			return v
		}
		lo, hi := num(e["minValue"]), num(e["maxValue"])
		switch {
		case lo != "" && hi != "":
			return lo + "-" + hi
		case lo != "":
			return lo + "+"
		}
	}
	return ""
}

// industryWords are the industries the heuristic knows, with their
// keywords.
var industryWords = []struct {
	name  string
	words []string
}{
	{"Software", []string{"software", "app", "platform", "saas", "api", "developer", "cloud", "dashboard"}},
	{"Financial services", []string{"invoice", "invoicing", "payment", "payments", "bank", "accounting", "tax", "finance", "insurance"}},
	{"Retail", []string{"shop", "store", "cart", "shipping", "sale", "collection", "buy"}},
	{"Food and drink", []string{"restaurant", "bakery", "café", "cafe", "coffee", "menu", "recipe", "bread", "kitchen"}},
	{"Travel", []string{"travel", "trip", "trips", "hotel", "flights", "booking", "tour"}},
	{"Health", []string{"health", "clinic", "medical", "doctor", "care", "patients", "wellness"}},
	{"Education", []string{"course", "courses", "learn", "learning", "school", "students", "training"}},
	{"Media", []string{"news", "magazine", "podcast", "stories", "journalism", "articles"}},
	{"Energy", []string{"energy", "electricity", "solar", "renewable", "wind", "tariff"}},
	{"Design", []string{"design", "studio", "branding", "graphic", "typography", "portfolio"}},
	{"Real estate", []string{"property", "homes", "apartment", "rent", "estate", "listing"}},
	{"Manufacturing", []string{"manufacturing", "factory", "industrial", "hardware", "machines"}},
}

func industry(text string) string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == 'é') })
	count := map[string]int{}
	for _, w := range words {
		for _, ind := range industryWords {
			for _, k := range ind.words {
				if w == k {
					count[ind.name]++
				}
			}
		}
	}
	best, n := "", 1
	for _, ind := range industryWords {
		if count[ind.name] > n {
			best, n = ind.name, count[ind.name]
		}
	}
	return best
}

var forRe = regexp.MustCompile(`(?i)\bfor\s+((?:[\p{L}-]+\s*(?:,|and|&)?\s*){1,6})`)

// audience is the phrase after "for" (at most six words, up to
// punctuation).
func audience(s string) string {
	m := forRe.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	a := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(m[1]), ",&"))
	a = strings.TrimSuffix(strings.TrimSuffix(a, " and"), " &")
	firstWord, _, _ := strings.Cut(strings.ToLower(a), " ")
	for _, stop := range []string{"the", "free", "a", "an", "your", "you", "more", "less", "years", "days", "all", "every"} {
		if firstWord == stop {
			return ""
		}
	}
	return a
}

func segments(a string) []string {
	out := []string{}
	for _, p := range regexp.MustCompile(`\s*(?:,|\band\b|&)\s*`).Split(a, -1) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// voice judges the text's voice (see Enrich).
func voice(text string) []string {
	out := []string{}
	if text == "" {
		return out
	}
	words := strings.Fields(strings.ToLower(text))
	sentences := len(regexp.MustCompile(`[.!?](\s|$)`).FindAllString(text, -1))
	if sentences == 0 {
		sentences = 1
	}
	you := 0
	for _, w := range words {
		w = strings.Trim(w, ".,!?;:")
		if w == "you" || w == "your" || w == "you're" || w == "yours" {
			you++
		}
	}
	perSentence := float64(len(words)) / float64(sentences)
	if float64(you) >= 0.02*float64(len(words)) {
		out = append(out, "direct")
	}
	if perSentence < 14 {
		out = append(out, "concise")
	}
	if strings.Count(text, "!") >= 2 {
		out = append(out, "enthusiastic")
	}
	if !strings.ContainsAny(text, "’'") && perSentence > 20 {
		out = append(out, "formal")
	}
	if regexp.MustCompile(`(?i)\b(api|sdk|cli|kubernetes|latency|\d+\s?(ms|gb|mb|kb))\b`).MatchString(text) {
		out = append(out, "technical")
	}
	if len(out) > 3 {
		out = out[:3]
	}
	sort.Strings(out)
	return out
}

// useCases are the feature headings of the main content.
func useCases(d *content.Document) []string {
	out := []string{}
	for _, sel := range []string{"main h3, section h3, article h3", "main h2, section h2"} {
		d.Doc.Find(sel).Each(func(_ int, h *goquery.Selection) {
			if t := strings.Join(strings.Fields(h.Text()), " "); t != "" && len(t) <= 80 && len(out) < 6 {
				out = append(out, t)
			}
		})
		if len(out) > 0 {
			break
		}
	}
	return out
}
