package content

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// AddIcons adds icons found elsewhere (a manifest's, the site's
// /favicon.ico) to m's and, when the logo was to come from the icons,
// chooses it again among them all.
func (m *Metadata) AddIcons(icons ...Icon) {
	m.Icons = append(m.Icons, icons...)
	if m.Logo == "" || m.logoFromIcons {
		m.Logo, m.logoFromIcons = bestIcon(m.Icons), true
	}
}

// DefaultIconPaths are where a site's icon is when the page names none,
// in the order metascraper-logo-favicon tries them, with the content
// types each must be served as.
var DefaultIconPaths = []struct {
	Path  string
	Types []string
}{
	{"/favicon.ico", []string{"image/vnd.microsoft.icon", "image/x-icon"}},
	{"/favicon.png", []string{"image/png"}},
}

// IsIcon reports whether a response to a DefaultIconPaths path is an
// icon: served as one of types, not empty, and not an HTML page (a
// server's "not found" page served as an image starts with '<').
func IsIcon(contentType string, body []byte, types []string) bool {
	ct, _, _ := strings.Cut(strings.ToLower(contentType), ";")
	ok := false
	for _, t := range types {
		ok = ok || strings.TrimSpace(ct) == t
	}
	return ok && len(body) > 0 && body[0] != '<'
}

// bestIcon is the icon metascraper-logo-favicon would take as the logo:
// square icons before others, each ranked by width times a factor of
// its kind (apple, android and PNG icons 5, JPEG 4, SVG 3, ICO 2, else
// 1), the first of equals kept. The width comes from sizes, else from a
// WxH in the URL; an icon of unknown size counts as square, 1 wide.
func bestIcon(icons []Icon) string {
	best, bestSquare, bestRank := "", false, -1
	for _, i := range icons {
		w, h := iconSize(i)
		square := w == h
		rank := iconFactor(i.URL) * max(w, 1)
		if best == "" || square && !bestSquare || square == bestSquare && rank > bestRank {
			best, bestSquare, bestRank = i.URL, square, rank
		}
	}
	return best
}

// sizeInURL is a WxH in an icon's URL ("favicon-32x32.png").
var sizeInURL = regexp.MustCompile(`(\d+)[x×](\d+)`)

// iconSize is an icon's width and height: the first of its sizes
// attribute, else a WxH in its URL; 0, 0 when unknown.
func iconSize(i Icon) (int, int) {
	s := strings.ToLower(strings.ReplaceAll(i.Sizes, "×", "x"))
	if f := strings.Fields(s); len(f) > 0 {
		s = f[0]
	} else if m := sizeInURL.FindString(i.URL); m != "" {
		s = strings.ReplaceAll(m, "×", "x")
	}
	w, h, ok := strings.Cut(s, "x")
	if !ok {
		return 0, 0
	}
	wi, _ := strconv.Atoi(w)
	hi, _ := strconv.Atoi(h)
	return wi, hi
}

// iconFactor weighs an icon by its kind, read from its URL.
func iconFactor(raw string) int {
	u := strings.ToLower(raw)
	if p, err := url.Parse(raw); err == nil {
		u = strings.ToLower(p.Path)
	}
	switch {
	case strings.Contains(strings.ToLower(raw), "apple"), strings.Contains(strings.ToLower(raw), "android"), strings.HasSuffix(u, "png"):
		return 5
	case strings.HasSuffix(u, "jpg"), strings.HasSuffix(u, "jpeg"):
		return 4
	case strings.HasSuffix(u, "svg"):
		return 3
	case strings.HasSuffix(u, "ico"):
		return 2
	}
	return 1
}

// tileIcons are the msapplication tile images a page names (meta
// msapplication-TileImage, msapplication-square150x150logo, …).
func (x *extraction) tileIcons() []Icon {
	var out []Icon
	x.d.Doc.Find(`meta[name*="msapplication" i][content]`).Each(func(_ int, m *goquery.Selection) {
		name := strings.ToLower(m.AttrOr("name", ""))
		if !strings.Contains(name, "tileimage") && !strings.Contains(name, "logo") {
			return // TileColor, config, navbutton-color: no images
		}
		if u := x.d.resolve(m.AttrOr("content", "")); u != "" {
			out = append(out, Icon{URL: u, Rel: name, Source: "html"})
		}
	})
	return out
}
