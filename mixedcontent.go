package sitediag

import (
	"context"
	"net/url"

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
type MixedContentItem = browser.MixedContentItem

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
func (c *Client) MixedContent(ctx context.Context, rawURL string, opts MixedContentOptions) (*MixedContentResult, error) {
	return runPage(ctx, c, rawURL, &opts, &opts.PageOptions, pageOp{name: "MixedContent", failed: CodeMixedContentCheckFailed}, func(ctx context.Context, p *page) (*MixedContentResult, error) {
		p.issues = true
		res := &MixedContentResult{Settings: opts}
		var requests []browser.Request
		var issues []browser.MixedContentIssue
		var html string
		var err error
		res.PageVisit, err = c.visit(ctx, p, func(ctx context.Context, j *browser.Job) error {
			var err error
			if html, err = j.HTML(ctx, MaxDocumentBytes); err != nil {
				return err
			}
			requests, issues = j.Requests(), j.MixedContentIssues()
			return nil
		})
		if err != nil {
			return nil, err
		}
		if !opts.FollowRedirect.Bool() && res.RedirectedURL != res.URL {
			return nil, NewError(CodeUnableToConnect, nil, "the page redirects to %s; set followRedirect to check the page it leads to", res.RedirectedURL)
		}
		if final, err := url.Parse(res.RedirectedURL); err == nil && final.Scheme != "https" {
			res.Insecure, res.Secure, res.Items = []string{}, []string{}, []MixedContentItem{}
			return res, nil
		}
		doc, err := renderedDocument(html, res.RedirectedURL, CodeMixedContentCheckFailed)
		if err != nil {
			return nil, err
		}
		mc := browser.ClassifyMixedContent(doc.URL, requests, issues, content.References(doc))
		res.Insecure, res.Secure, res.Items = mc.Insecure, mc.Secure, mc.Items
		return res, nil
	})
}

// MixedContent calls Client.MixedContent on the default client.
func MixedContent(ctx context.Context, rawURL string, opts MixedContentOptions) (*MixedContentResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).MixedContent)
}
