package content

import (
	"github.com/PuerkitoBio/goquery"

	"github.com/sitediag/sitediag/internal/htmlx"
)

// Reference is a sub-resource or form target the markup names.
type Reference struct {
	URL string
	// Kind is script, stylesheet, image, media, iframe, font, object,
	// form, manifest or icon.
	Kind string
}

// referenceAttrs are the elements whose attribute loads a resource (or,
// for a form, receives the user's input), by kind.
var referenceAttrs = []struct{ selector, attr, kind string }{
	{"script[src]", "src", "script"},
	{"link[rel~=stylesheet i][href]", "href", "stylesheet"},
	{"link[rel~=preload i][as=font i][href]", "href", "font"},
	{"link[rel~=icon i][href]", "href", "icon"},
	{"link[rel~=manifest i][href]", "href", "manifest"},
	{"img[src]", "src", "image"},
	{"img[srcset]", "srcset", "image"},
	{"picture source[srcset]", "srcset", "image"},
	{"video[src], audio[src], video source[src], audio source[src], track[src]", "src", "media"},
	{"video[poster]", "poster", "image"},
	{"iframe[src], frame[src]", "src", "iframe"},
	{"object[data]", "data", "object"},
	{"embed[src]", "src", "object"},
	{"form[action]", "action", "form"},
}

// References returns the sub-resources and form targets d's markup
// names, resolved, once each per kind, in document order.
func References(d *Document) []Reference {
	base := d.base()
	var out []Reference
	seen := map[Reference]bool{}
	for _, ra := range referenceAttrs {
		d.Doc.Find(ra.selector).Each(func(_ int, s *goquery.Selection) {
			raw, ok := s.Attr(ra.attr)
			if !ok {
				return
			}
			values := []string{raw}
			if ra.attr == "srcset" {
				values = htmlx.SrcsetURLs(raw)
			}
			for _, v := range values {
				u := htmlx.Resolve(base, v)
				if u == nil {
					continue
				}
				r := Reference{URL: u.String(), Kind: ra.kind}
				if !seen[r] {
					seen[r] = true
					out = append(out, r)
				}
			}
		})
	}
	return out
}
