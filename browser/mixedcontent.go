package browser

import (
	"net/url"
	"slices"
	"strings"

	"github.com/sitediag/sitediag/content"
)

// MixedContentItem is one insecure (http: or ws:) URL an https page
// loads, tried to load, or names in its markup.
type MixedContentItem struct {
	URL string `json:"url"`
	// Type is script, stylesheet, image, media, iframe, font, object,
	// form, xhr, fetch, websocket, manifest, icon or other.
	Type string `json:"type"`
	// Active is true for what can change the page: scripts, styles,
	// frames, fonts, fetches, WebSockets, objects and forms.
	Active bool `json:"active"`
	// Blocked says Chromium refused to load it as mixed content.
	Blocked bool `json:"blocked"`
	// Upgraded says Chromium loaded it over https instead (passive
	// content that browsers upgrade automatically).
	Upgraded bool `json:"upgraded"`
	// Source is browser (the page requested it) or html (only named in
	// the markup, such as a form's action or a lazy image).
	Source string `json:"source"`
}

// MixedContent is what an https page loaded over https and what it
// loaded, tried to load or named over http.
type MixedContent struct {
	// Insecure are the URLs of Items, in order; Secure the https and wss
	// URLs the page requested.
	Insecure []string
	Secure   []string
	Items    []MixedContentItem
}

// ClassifyMixedContent sorts what the https page at page requested (a
// Job's Requests), the mixed-content issues Chromium raised for it (its
// MixedContentIssues) and the http URLs its markup names (refs) into
// secure URLs and insecure items, one item per URL: the page's own
// document is left out, a request Chromium blocked as mixed content or an
// issue saying so marks its item Blocked, an issue saying Chromium
// upgraded it marks it Upgraded, and a URL only the markup names has
// Source html. Nothing is nil.
func ClassifyMixedContent(page *url.URL, requests []Request, issues []MixedContentIssue, refs []content.Reference) MixedContent {
	mc := MixedContent{Insecure: []string{}, Secure: []string{}, Items: []MixedContentItem{}}
	byURL := map[string]int{}
	add := func(item MixedContentItem) *MixedContentItem {
		if i, ok := byURL[item.URL]; ok {
			return &mc.Items[i]
		}
		byURL[item.URL] = len(mc.Items)
		mc.Items = append(mc.Items, item)
		return &mc.Items[len(mc.Items)-1]
	}
	secure := map[string]bool{}
	for _, r := range requests {
		if r.Type == "Document" && r.URL == page.String() {
			continue // the page itself
		}
		switch scheme(r.URL) {
		case "https", "wss":
			if !secure[r.URL] {
				secure[r.URL] = true
				mc.Secure = append(mc.Secure, r.URL)
			}
		case "http", "ws":
			typ := requestType(r.Type)
			item := add(MixedContentItem{URL: r.URL, Type: typ, Active: isActive(typ), Source: "browser"})
			item.Blocked = item.Blocked || r.Blocked && r.Reason == "mixed-content"
		}
	}
	for _, is := range issues {
		typ := issueType(is.ResourceType)
		item := add(MixedContentItem{URL: is.URL, Type: typ, Active: isActive(typ), Source: "browser"})
		switch is.Resolution {
		case "MixedContentBlocked":
			item.Blocked = true
		case "MixedContentAutomaticallyUpgraded":
			item.Upgraded = true
		}
	}
	for _, r := range refs {
		if scheme(r.URL) == "http" {
			add(MixedContentItem{URL: r.URL, Type: r.Kind, Active: isActive(r.Kind), Source: "html"})
		}
	}
	for _, item := range mc.Items {
		mc.Insecure = append(mc.Insecure, item.URL)
	}
	return mc
}

func scheme(raw string) string {
	s, _, _ := strings.Cut(raw, ":")
	return strings.ToLower(s)
}

// requestType names Chromium's resource type of a request as an item
// type.
func requestType(t string) string {
	switch t {
	case "Document":
		return "iframe"
	case "XHR":
		return "xhr"
	case "EventSource":
		return "fetch"
	case "Script", "Stylesheet", "Image", "Media", "Font", "Fetch", "WebSocket", "Manifest":
		return strings.ToLower(t)
	}
	return "other"
}

// issueType names a mixed-content issue's resource type as an item type.
func issueType(t string) string {
	switch t {
	case "Script", "Worker", "SharedWorker", "ServiceWorker", "Import":
		return "script"
	case "Stylesheet", "XSLT":
		return "stylesheet"
	case "Image", "Favicon":
		return "image"
	case "Audio", "Video", "Track":
		return "media"
	case "Frame":
		return "iframe"
	case "XMLHttpRequest":
		return "xhr"
	case "Form", "Font", "Fetch", "Manifest":
		return strings.ToLower(t)
	case "EventSource", "Beacon", "Ping":
		return "fetch"
	case "PluginResource", "PluginData":
		return "object"
	}
	return "other"
}

// isActive reports whether content of this type can change the page
// (W3C Mixed Content's "blockable" content).
func isActive(typ string) bool {
	return !slices.Contains([]string{"image", "media", "icon", "other"}, typ)
}
