package brand

import (
	"encoding/base64"
	"math"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/sitediag/sitediag/content"
)

// Inputs are what Extract works from.
type Inputs struct {
	// Doc is the rendered page's DOM.
	Doc *content.Document
	// Light are the page's styles with its own colour scheme; Dark with
	// prefers-color-scheme: dark (nil when not read).
	Light, Dark *Styles
	// Manifest is the page's web app manifest, when it has one.
	Manifest *content.Manifest
}

// Extract builds the standard record.
func Extract(in Inputs) *Record {
	d, s := in.Doc, in.Light
	m := content.ExtractMetadata(d)
	if in.Manifest != nil {
		m.Icons = append(m.Icons, in.Manifest.Icons...)
	}
	org := organization(m.Sources.JSONLD)
	r := &Record{
		Domain:         strings.TrimPrefix(strings.ToLower(d.URL.Hostname()), "www."),
		Description:    m.Description,
		Slogan:         str(org["slogan"]),
		Logos:          []Logo{},
		Fonts:          []Font{},
		SocialProfiles: socialProfiles(d, m.Sources.JSONLD),
		Links:          keyLinks(d),
		PageMeta:       PageMeta{Title: m.Sources.Document.Title, ThemeColor: m.ThemeColor, CanonicalURL: m.Canonical, Language: m.Lang},
	}
	var manifestName string
	if in.Manifest != nil {
		manifestName = first(in.Manifest.Name, in.Manifest.ShortName)
	}
	title := m.Sources.Document.Title
	r.Name = first(manifestName, ogSiteName(m), str(org["name"]), titleName(title))
	r.Tagline = first(titleRest(title, r.Name), shortText(s.HeroText, 90))
	r.Favicon = favicon(m.Icons)
	r.BannerURL = first(m.Image, resolve(d, s.Hero))
	r.IsNSFW = nsfw(d, m)
	r.Logos = logos(d, s, m, org)
	r.Colors = colors(s)
	r.ColorScheme = colorScheme(in.Light, in.Dark)
	r.Fonts = fonts(s)
	r.FontSizes = FontSizes{H1: size(s.H1), H2: size(s.H2), Body: s.BodyFont.Size}
	r.Components = Components{ButtonPrimary: component(s.ButtonPrimary), ButtonSecondary: component(s.ButtonSecondary), Input: component(s.Input)}
	r.Spacing = Spacing{BaseUnit: baseUnit(s.Spacing), BorderRadius: mode(s.Radii)}
	return r
}

func first(values ...string) string {
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

func str(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

func ogSiteName(m *content.Metadata) string {
	s, _ := m.Sources.OpenGraph["site_name"].(string)
	return s
}

// organization is the first JSON-LD object of an organisation type.
func organization(objects []map[string]any) map[string]any {
	for _, o := range objects {
		if orgKind(o) != "" {
			return o
		}
	}
	return map[string]any{}
}

// orgKinds maps schema.org organisation types to a company kind.
var orgKinds = map[string]string{
	"Organization": "company", "Corporation": "company", "OnlineBusiness": "company", "OnlineStore": "ecommerce",
	"LocalBusiness": "local business", "Store": "local business", "Restaurant": "local business", "Bakery": "local business",
	"ProfessionalService": "local business", "NGO": "nonprofit", "NonprofitOrganization": "nonprofit",
	"EducationalOrganization": "education", "CollegeOrUniversity": "education", "School": "education",
	"GovernmentOrganization": "government", "NewsMediaOrganization": "media", "SportsOrganization": "organization",
	"MedicalOrganization": "healthcare", "Hospital": "healthcare",
}

func orgKind(o map[string]any) string {
	switch t := o["@type"].(type) {
	case string:
		return orgKinds[t]
	case []any:
		for _, v := range t {
			if k := orgKinds[str(v)]; k != "" {
				return k
			}
		}
	}
	return ""
}

var separators = regexp.MustCompile(`\s+[|–—·:-]\s+`)

// titleName is the site's name as a title gives it: its last part
// ("Story | Site"), or the whole title when it has one part.
func titleName(title string) string {
	parts := separators.Split(strings.TrimSpace(title), -1)
	if len(parts) == 0 {
		return ""
	}
	if len(parts) == 1 {
		return parts[0]
	}
	// "Site – tagline" puts the name first, "Story | Site" last: the
	// shorter end is the name.
	if len(parts[0]) <= len(parts[len(parts)-1]) {
		return parts[0]
	}
	return parts[len(parts)-1]
}

// titleRest is the part of the title that is not the name.
func titleRest(title, name string) string {
	parts := separators.Split(strings.TrimSpace(title), -1)
	if len(parts) < 2 {
		return ""
	}
	var rest []string
	for _, p := range parts {
		if !strings.EqualFold(p, name) {
			rest = append(rest, p)
		}
	}
	if len(rest) == len(parts) {
		return ""
	}
	return strings.Join(rest, " – ")
}

func shortText(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		return ""
	}
	return s
}

func resolve(d *content.Document, raw string) string {
	if raw == "" {
		return ""
	}
	u, err := d.URL.Parse(raw)
	if err != nil {
		return ""
	}
	return u.String()
}

// favicon is the page's icon: a rel=icon (the /favicon.ico-sized one
// first), else any icon it declares. A favicon the page does not
// declare is not guessed.
func favicon(icons []content.Icon) string {
	best, bestScore := "", -1
	for _, i := range icons {
		score := 0
		switch {
		case strings.Contains(i.Rel, "apple-touch"), i.Source == "manifest":
			score = 1
		case strings.Contains(i.Rel, "icon"):
			score = 3
			if strings.Contains(i.Sizes, "32") || strings.HasSuffix(i.URL, ".ico") {
				score = 4
			}
		}
		if score > bestScore {
			best, bestScore = i.URL, score
		}
	}
	return best
}

// nsfwWords are the words the adult-content heuristic counts.
var nsfwWords = regexp.MustCompile(`(?i)\b(porn\w*|xxx|nsfw|nude|nudity|erotic\w*|sex cams?|adult content|escorts?|hentai)\b`)

// nsfw is true when the page rates itself adult (meta rating "adult",
// "mature" or the RTA label) or when its title, description, keywords
// and headings use two or more words of nsfwWords.
func nsfw(d *content.Document, m *content.Metadata) bool {
	var ratings []string
	switch v := m.Sources.Meta["rating"].(type) {
	case string:
		ratings = []string{v}
	case []string:
		ratings = v
	}
	for _, r := range ratings {
		if r = strings.ToLower(r); r == "adult" || r == "mature" || strings.Contains(r, "rta-5042") {
			return true
		}
	}
	text := m.Title + " " + m.Description + " " + strings.Join(m.Keywords, " ") + " " + d.Doc.Find("h1, h2").Text()
	return len(nsfwWords.FindAllString(text, -1)) >= 2
}

// logos turns the page's logo candidates, touch and manifest icons and
// JSON-LD logo into logos.
func logos(d *content.Document, s *Styles, m *content.Metadata, org map[string]any) []Logo {
	out := []Logo{}
	seen := map[string]bool{}
	add := func(l Logo) {
		if l.URL != "" && !seen[l.URL] {
			seen[l.URL] = true
			out = append(out, l)
		}
	}
	for _, c := range s.Logos {
		typ := "logo"
		if c.Width > 0 && math.Abs(c.Width-c.Height) <= 0.15*c.Width {
			typ = "symbol"
		}
		switch c.Kind {
		case "svg":
			svg := c.SVG
			if !strings.Contains(svg, "xmlns=") {
				svg = strings.Replace(svg, "<svg", `<svg xmlns="http://www.w3.org/2000/svg"`, 1)
			}
			theme := themeOnBackdrop(c.Backdrop)
			if c.Fill != "" {
				theme = themeOfInk(c.Fill)
			}
			add(Logo{Type: typ, URL: "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(svg)), Format: "svg", Theme: theme})
		default:
			u := resolve(d, c.Src)
			add(Logo{Type: typ, URL: u, Format: format(u), Theme: themeOnBackdrop(c.Backdrop)})
		}
	}
	if u := resolve(d, ldURL(org["logo"])); u != "" {
		add(Logo{Type: "logo", URL: u, Format: format(u)})
	}
	for _, i := range m.Icons {
		if strings.Contains(i.Rel, "apple-touch-icon") || i.Source == "manifest" {
			add(Logo{Type: "icon", URL: i.URL, Format: format(i.URL)})
		}
	}
	return out
}

func ldURL(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		return first(str(v["url"]), str(v["contentUrl"]))
	case []any:
		if len(v) > 0 {
			return ldURL(v[0])
		}
	}
	return ""
}

// format is an image URL's format, from a data: URI's type or the file
// extension.
func format(u string) string {
	if rest, ok := strings.CutPrefix(u, "data:image/"); ok {
		t, _, _ := strings.Cut(rest, ";")
		t, _, _ = strings.Cut(t, ",")
		return strings.TrimSuffix(strings.ReplaceAll(t, "svg+xml", "svg"), "x-icon")
	}
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	switch ext := strings.ToLower(strings.TrimPrefix(path.Ext(p.Path), ".")); ext {
	case "jpg", "jpeg":
		return "jpeg"
	case "svg", "png", "webp", "gif", "ico", "avif":
		return ext
	}
	return ""
}

// channels are a colour's (#rrggbb) red, green and blue, 0–1.
func channels(hex string) (r, g, b float64, ok bool) {
	if len(hex) != 7 || hex[0] != '#' {
		return 0, 0, 0, false
	}
	v, err := strconv.ParseUint(hex[1:], 16, 32)
	if err != nil {
		return 0, 0, 0, false
	}
	return float64(v>>16&0xff) / 255, float64(v>>8&0xff) / 255, float64(v&0xff) / 255, true
}

// luminance is a colour's relative luminance (WCAG), 0–1.
func luminance(hex string) (float64, bool) {
	r, g, b, ok := channels(hex)
	if !ok {
		return 0, false
	}
	ch := func(x float64) float64 {
		if x <= 0.03928 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*ch(r) + 0.7152*ch(g) + 0.0722*ch(b), true
}

// themeOnBackdrop: a logo on a dark background is the dark-theme logo.
func themeOnBackdrop(bg string) string {
	l, ok := luminance(bg)
	switch {
	case !ok:
		return ""
	case l < 0.4:
		return "dark"
	}
	return "light"
}

// themeOfInk: light ink is for dark backgrounds.
func themeOfInk(fill string) string {
	l, ok := luminance(fill)
	switch {
	case !ok:
		return ""
	case l > 0.6:
		return "dark"
	}
	return "light"
}

// colors reads the palette and the roles.
// A colour equal to the browser's default for its element (an unstyled
// button's grey, a link's #0000ee) is not a brand colour.
func colors(s *Styles) Colors {
	c := Colors{Background: s.PageBackground, Text: s.Text, Palette: []Swatch{}}
	if s.Link != s.BrowserLink {
		c.Link = s.Link // the site's own link colour, not the browser's
	}
	var button string
	if b := component(s.ButtonPrimary); b != nil {
		button = b.Background
	}
	c.Primary = primary(button, c.Link)
	if b := component(s.ButtonSecondary); b != nil {
		c.Secondary = first(b.Background, b.BorderColor, b.TextColor)
	}
	total := 0.0
	for _, a := range s.Paint {
		if a > 0 {
			total += a
		}
	}
	for hex, a := range s.Paint {
		if a > 0 && total > 0 && a/total >= 0.005 {
			c.Palette = append(c.Palette, Swatch{Hex: hex, Usage: math.Round(a/total*1000) / 1000})
		}
	}
	sort.Slice(c.Palette, func(i, j int) bool {
		if c.Palette[i].Usage != c.Palette[j].Usage {
			return c.Palette[i].Usage > c.Palette[j].Usage
		}
		return c.Palette[i].Hex < c.Palette[j].Hex
	})
	if len(c.Palette) > 10 {
		c.Palette = c.Palette[:10]
	}
	for _, sw := range c.Palette {
		if sw.Hex != c.Primary && sw.Hex != c.Secondary && sw.Hex != c.Background && sw.Hex != c.Text && sw.Hex != c.Link {
			c.Accent = sw.Hex
			break
		}
	}
	return c
}

// primary is the brand's primary colour: the primary button's, else
// the site's link colour, the first of them that is a colour rather than
// a neutral. A neutral is no brand's accent beside a coloured one (a
// black "Subscribe" beside blue links leaves blue the brand's), and a
// neutral link colour is only text (a white title link on a dark
// masthead); a neutral button is the primary of a monochrome site.
func primary(button, link string) string {
	for _, c := range []string{button, link} {
		if c != "" && !neutral(c) {
			return c
		}
	}
	return button
}

// neutral is true for black, white and greys (#rrggbb): a colour whose
// chroma, its largest channel less its smallest, is under a tenth of
// the range, where no hue shows (Tailwind's gray-900 #111827 is
// neutral, a navy #0b2545 is not).
func neutral(hex string) bool {
	r, g, b, ok := channels(hex)
	return ok && max(r, g, b)-min(r, g, b) < 0.1
}

// colorScheme is light or dark by the page's background, or both when
// prefers-color-scheme: dark changes it.
func colorScheme(light, dark *Styles) string {
	if light == nil || light.PageBackground == "" {
		return ""
	}
	l, _ := luminance(light.PageBackground)
	if dark != nil && dark.PageBackground != "" && dark.PageBackground != light.PageBackground {
		if dl, _ := luminance(dark.PageBackground); dl < 0.4 && l >= 0.4 {
			return "both"
		}
	}
	if l < 0.4 {
		return "dark"
	}
	return "light"
}

// fonts lists the family of the headings, the body text and the
// buttons (see firstFamily), with where each comes from. A family the
// browser would use for that element anyway (Times New Roman for text,
// the buttons' system font) is not the site's, and is left out.
func fonts(s *Styles) []Font {
	out := []Font{}
	seen := map[string]bool{}
	for _, f := range []struct{ usage, stack string }{
		{"heading", probeFont(s.H1)}, {"body", authorFont(s.BodyFont.Family, s.BodyFont.UAFamily)}, {"ui", probeFont(s.ButtonPrimary)},
	} {
		family := firstFamily(f.stack)
		if family == "" || seen[family+f.usage] {
			continue
		}
		seen[family+f.usage] = true
		out = append(out, Font{Family: family, Usage: f.usage, Source: fontSource(family, s)})
	}
	return out
}

// probeFont is p's font family unless it is the browser's default for
// p's tag.
func probeFont(p *probe) string {
	if p == nil {
		return ""
	}
	return authorFont(p.FontFamily, p.UA.FontFamily)
}

// authorFont is family unless it is ua, the browser's default.
func authorFont(family, ua string) string {
	if family == ua {
		return ""
	}
	return family
}

// firstFamily is the first family of a font-family stack: the one the
// designer chose, which renders wherever it is available; the rest are
// fallbacks ("Georgia, Utopia, serif" is Georgia, not Utopia, and
// "-apple-system, …, Inter" is the system font, Inter only where there
// is none).
func firstFamily(stack string) string {
	for f := range strings.SplitSeq(stack, ",") {
		if f = strings.Trim(strings.TrimSpace(f), `"'`); f != "" {
			return f
		}
	}
	return ""
}

// fontSource says where a family comes from: a Google Fonts or Adobe
// Fonts stylesheet, a self-hosted @font-face, or the system.
func fontSource(family string, s *Styles) string {
	plus := strings.ReplaceAll(family, " ", "+")
	for _, l := range s.FontLinks {
		if (strings.Contains(l, "fonts.googleapis.com") || strings.Contains(l, "fonts.bunny.net")) &&
			(strings.Contains(l, "family="+plus) || strings.Contains(l, "family="+url.QueryEscape(family))) {
			return "google"
		}
	}
	for _, f := range s.Faces {
		if !strings.EqualFold(f.Family, family) {
			continue
		}
		switch {
		case strings.Contains(f.Src, "fonts.gstatic.com") || strings.Contains(f.Sheet, "fonts.googleapis.com"):
			return "google"
		case strings.Contains(f.Src, "typekit") || strings.Contains(f.Sheet, "typekit"):
			return "adobe"
		}
		return "custom"
	}
	for _, l := range s.FontLinks {
		if strings.Contains(l, "typekit") {
			return "adobe"
		}
	}
	return "system"
}

func size(p *probe) string {
	if p == nil {
		return ""
	}
	return p.FontSize
}

// component is p's look without the values that are the browser's
// defaults for p's tag; nil when nothing is left (an unstyled control).
func component(p *probe) *ComponentStyle {
	if p == nil {
		return nil
	}
	c, ua := p.ComponentStyle, p.UA.ComponentStyle
	for _, f := range []struct {
		v  *string
		ua string
	}{
		{&c.Background, ua.Background}, {&c.TextColor, ua.TextColor}, {&c.BorderColor, ua.BorderColor},
		{&c.BorderRadius, ua.BorderRadius}, {&c.Shadow, ua.Shadow},
	} {
		if *f.v == f.ua {
			*f.v = ""
		}
	}
	if c == (ComponentStyle{}) {
		return nil
	}
	return &c
}

// baseUnit is the largest common spacing step (of 12, 10, 8, 6, 5, 4 px)
// that at least 60 % of the samples are multiples of.
func baseUnit(samples []float64) float64 {
	if len(samples) < 5 {
		return 0
	}
	for _, unit := range []float64{12, 10, 8, 6, 5, 4} {
		n := 0
		for _, v := range samples {
			if r := math.Mod(v, unit); r < 0.5 || unit-r < 0.5 {
				n++
			}
		}
		if float64(n) >= 0.6*float64(len(samples)) {
			return unit
		}
	}
	return 0
}

func mode(values []string) string {
	count := map[string]int{}
	best := ""
	for _, v := range values {
		count[v]++
		if count[v] > count[best] || count[v] == count[best] && v < best {
			best = v
		}
	}
	return best
}

// networks are the social networks recognised, by host.
var networks = []struct{ host, name string }{
	{"twitter.com", "twitter"}, {"x.com", "x"}, {"facebook.com", "facebook"}, {"instagram.com", "instagram"},
	{"linkedin.com", "linkedin"}, {"youtube.com", "youtube"}, {"github.com", "github"}, {"tiktok.com", "tiktok"},
	{"pinterest.com", "pinterest"}, {"threads.net", "threads"}, {"bsky.app", "bluesky"}, {"mastodon.social", "mastodon"},
	{"discord.gg", "discord"}, {"discord.com", "discord"}, {"reddit.com", "reddit"}, {"medium.com", "medium"},
	{"dribbble.com", "dribbble"}, {"behance.net", "behance"}, {"t.me", "telegram"}, {"wa.me", "whatsapp"},
}

func network(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || strings.Trim(u.Path, "/") == "" {
		return ""
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	for _, n := range networks {
		if host == n.host || strings.HasSuffix(host, "."+n.host) {
			if n.name == "linkedin" && strings.HasPrefix(u.Path, "/share") || strings.Contains(u.Path, "/intent/") || strings.Contains(u.Path, "/sharer") {
				return "" // share buttons, not profiles
			}
			return n.name
		}
	}
	return ""
}

// socialProfiles lists the profiles the page links to and its JSON-LD
// sameAs names, once each.
func socialProfiles(d *content.Document, ld []map[string]any) []Social {
	out := []Social{}
	seen := map[string]bool{}
	add := func(raw string) {
		u := resolve(d, raw)
		if name := network(u); name != "" && !seen[u] {
			seen[u] = true
			out = append(out, Social{Name: name, URL: u})
		}
	}
	for _, o := range ld {
		switch v := o["sameAs"].(type) {
		case string:
			add(v)
		case []any:
			for _, s := range v {
				add(str(s))
			}
		}
	}
	d.Doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) { add(a.AttrOr("href", "")) })
	return out
}

// linkRules find the key links: a path pattern or link text.
var linkRules = []struct {
	set  func(*Links, string)
	path *regexp.Regexp
	text *regexp.Regexp
}{
	{func(l *Links, u string) { l.Blog = u }, regexp.MustCompile(`(?i)/(blog|news|articles)(/|$)`), regexp.MustCompile(`(?i)^(blog|news)$`)},
	{func(l *Links, u string) { l.Login = u }, regexp.MustCompile(`(?i)/(login|log-in|signin|sign-in|sign_in|account/login)(/|$)`), regexp.MustCompile(`(?i)^(log ?in|sign ?in)$`)},
	{func(l *Links, u string) { l.Signup = u }, regexp.MustCompile(`(?i)/(signup|sign-up|register|join|get-started|start)(/|$)`), regexp.MustCompile(`(?i)^(sign ?up|register|get started|start free|create (an )?account|try (it )?free)`)},
	{func(l *Links, u string) { l.Careers = u }, regexp.MustCompile(`(?i)/(careers|jobs|join-us|work-with-us)(/|$)`), regexp.MustCompile(`(?i)^(careers|jobs|we're hiring)$`)},
	{func(l *Links, u string) { l.Contact = u }, regexp.MustCompile(`(?i)/(contact|contact-us|support)(/|$)`), regexp.MustCompile(`(?i)^contact( us)?$`)},
	{func(l *Links, u string) { l.Privacy = u }, regexp.MustCompile(`(?i)/(privacy|privacy-policy|datenschutz)(/|\.|$)`), regexp.MustCompile(`(?i)privacy`)},
	{func(l *Links, u string) { l.Terms = u }, regexp.MustCompile(`(?i)/(terms|tos|terms-of-service|legal|conditions)(/|\.|$)`), regexp.MustCompile(`(?i)^terms|conditions of use`)},
	{func(l *Links, u string) { l.Pricing = u }, regexp.MustCompile(`(?i)/(pricing|plans|prices)(/|$)`), regexp.MustCompile(`(?i)^(pricing|plans)$`)},
}

// keyLinks finds each key link: the first link whose path or text
// matches its rule.
func keyLinks(d *content.Document) Links {
	var l Links
	found := make([]bool, len(linkRules))
	d.Doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		u := resolve(d, a.AttrOr("href", ""))
		p, err := url.Parse(u)
		if u == "" || err != nil || (p.Scheme != "http" && p.Scheme != "https") {
			return
		}
		text := strings.Join(strings.Fields(a.Text()), " ")
		for i, r := range linkRules {
			if !found[i] && (r.path.MatchString(p.Path) || r.text.MatchString(text)) {
				r.set(&l, u)
				found[i] = true
				return
			}
		}
	})
	return l
}
