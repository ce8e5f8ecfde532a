package sitediag

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/content"
)

// MixedContentOptions are the options of MixedContent and the API's body
// of /mixedcontent. The zero value loads the page in a desktop Chromium,
// with ads allowed (they are part of what the page loads) and without
// following a redirect.
type MixedContentOptions struct {
	PageOptions `api:"blockAds=false,hideCookie=false,skipCaptcha=false"`
	// FollowRedirect checks the page a redirect leads to; off, a page
	// that redirects is CodeUnableToConnect.
	FollowRedirect Toggle `json:"followRedirect" api:"default=false"`
}

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

// MixedContentResult is what an https page loads over http. The tagged
// fields are the API's data.
type MixedContentResult struct {
	// Insecure are the URLs of Items; Secure the https URLs the page
	// loaded.
	Insecure  []string           `json:"insecure"`
	Secure    []string           `json:"secure"`
	Items     []MixedContentItem `json:"items"`
	PageVisit `json:"-"`
	// Settings are the options the page was checked with, defaults
	// filled in.
	Settings MixedContentOptions `json:"-"`
}

// MixedContent loads the page at rawURL in Chromium and reports the
// insecure content of an https page: every request the page really made
// over http or ws (the ones Chromium blocked or upgraded as mixed
// content included, from its Network events and mixed-content issues),
// and the insecure resources and form targets its markup names. A plain
// http page has no mixed content by definition. Errors: CodeInvalidURL,
// CodeInvalidParameters, CodeProxyCountryUnsupported,
// CodeTargetNotAllowed, CodeUnableToConnect (also a redirect not
// followed), CodeBrowserUnavailable, CodeBusy,
// CodeMixedContentCheckFailed.
func (c *Client) MixedContent(ctx context.Context, rawURL string, opts MixedContentOptions) (_ *MixedContentResult, err error) {
	ctx, end := c.startOp(ctx, "MixedContent", rawURL, opts)
	defer end(&err)
	if err := resolve(&opts); err != nil {
		return nil, err
	}
	p, err := c.newPage(rawURL, &opts.PageOptions, 0)
	if err != nil {
		return nil, err
	}
	res := &MixedContentResult{Settings: opts}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	var requests []browser.Request
	var issues []browser.MixedContentIssue
	var html string
	res.PageVisit = PageVisit{URL: p.target.URL.String()}
	err = c.browser.Do(ctx, p.job, func(ctx context.Context, j *browser.Job) error {
		if err := j.EnableIssues(ctx); err != nil {
			return err
		}
		v, err := c.load(ctx, j, p)
		if err != nil {
			return err
		}
		res.loaded(v)
		if html, err = j.HTML(ctx, MaxDocumentBytes); err != nil {
			return err
		}
		requests, issues = j.Requests(), j.MixedContentIssues()
		res.BlockedRequests = j.Stats().Refused
		return nil
	})
	if err != nil {
		return nil, mapBrowserError(err, CodeMixedContentCheckFailed)
	}
	if !opts.FollowRedirect.Bool() && res.RedirectedURL != res.URL {
		return nil, NewError(CodeUnableToConnect, nil, "the page redirects to %s; set followRedirect to check the page it leads to", res.RedirectedURL)
	}
	final, err := url.Parse(res.RedirectedURL)
	if err != nil {
		return nil, NewError(CodeMixedContentCheckFailed, err, "the page's final URL does not parse")
	}
	res.Insecure, res.Secure, res.Items = []string{}, []string{}, []MixedContentItem{}
	if final.Scheme != "https" {
		return res, nil
	}
	doc, err := content.ParseText(html, final)
	if err != nil {
		return nil, NewError(CodeMixedContentCheckFailed, err, "the page could not be parsed")
	}
	res.collect(final, requests, issues, content.References(doc))
	return res, nil
}

// collect classifies what the page requested, what Chromium reported and
// what the markup names.
func (res *MixedContentResult) collect(page *url.URL, requests []browser.Request, issues []browser.MixedContentIssue, refs []content.Reference) {
	byURL := map[string]int{}
	add := func(item MixedContentItem) *MixedContentItem {
		if i, ok := byURL[item.URL]; ok {
			return &res.Items[i]
		}
		byURL[item.URL] = len(res.Items)
		res.Items = append(res.Items, item)
		return &res.Items[len(res.Items)-1]
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
				res.Secure = append(res.Secure, r.URL)
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
	for _, item := range res.Items {
		res.Insecure = append(res.Insecure, item.URL)
	}
}

func scheme(raw string) string {
	s, _, _ := strings.Cut(raw, ":")
	return strings.ToLower(s)
}

// requestType names Chromium's resource type as an item type.
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

// MixedContent calls Client.MixedContent on the default client.
func MixedContent(ctx context.Context, rawURL string, opts MixedContentOptions) (*MixedContentResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).MixedContent)
}
