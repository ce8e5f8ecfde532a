package sitediag

import (
	"context"
	"errors"
	"mime"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/publicsuffix"

	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/content"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/httpprobe"
)

// Limits of the page-content operations (MetaScrape, WebScrape).
const (
	// MaxDocumentBytes is the most of a page that is read: the body of
	// the HTTP response, or the rendered DOM serialised.
	MaxDocumentBytes = 5 << 20
	// WaitForTimeout is how long WebScrapeOptions.WaitFor waits for its
	// element.
	WaitForTimeout = 15 * time.Second
)

// Metadata is what a page says about itself; see content.Metadata.
type Metadata = content.Metadata

// document is a page fetched and parsed for the content operations.
type document struct {
	doc   *content.Document
	visit PageVisit
	// waitForFound says whether WaitFor's element appeared (nil when
	// none was asked for).
	waitForFound *bool
}

// docOptions say how the content operations fetch a page.
type docOptions struct {
	renderJS bool
	waitTime time.Duration
	waitFor  string
}

// fetchDocument fetches p's page and parses it: rendered in Chromium
// (its DOM once loaded, after waitTime and waitFor), or with one guarded
// GET that follows redirects. failed is the operation's failure code.
func (c *Client) fetchDocument(ctx context.Context, p *page, o docOptions, failed Code) (*document, error) {
	if !o.renderJS {
		return c.fetchStatic(ctx, p, failed)
	}
	d := &document{}
	var html string
	visit, err := c.visit(ctx, p, func(ctx context.Context, j *browser.Job) error {
		if o.waitTime > 0 {
			select {
			case <-time.After(o.waitTime):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if o.waitFor != "" {
			found, err := j.WaitFor(ctx, o.waitFor, WaitForTimeout)
			if err != nil {
				return err
			}
			d.waitForFound = &found
		}
		var err error
		html, err = j.HTML(ctx, MaxDocumentBytes)
		return err
	})
	if err != nil {
		var sel *browser.SelectorError
		switch {
		case errors.As(err, &sel):
			return nil, InvalidParameter("waitFor", "is not a valid CSS selector")
		case errors.Is(err, browser.ErrTooLarge):
			return nil, tooLarge(failed, err)
		}
		return nil, mapBrowserError(err, failed)
	}
	if d.doc, err = renderedDocument(html, visit.RedirectedURL, failed); err != nil {
		return nil, err
	}
	d.visit = visit
	return d, nil
}

// renderedDocument parses html, a rendered page's DOM, as the document
// at finalURL, its URL once loaded; failed is the operation's failure
// code.
func renderedDocument(html, finalURL string, failed Code) (*content.Document, error) {
	final, err := url.Parse(finalURL)
	if err != nil {
		return nil, NewError(failed, err, "the page's final URL does not parse")
	}
	doc, err := content.ParseText(html, final)
	if err != nil {
		return nil, NewError(failed, err, "the page could not be parsed")
	}
	return doc, nil
}

// fetchStatic GETs p's page through the guard, without a browser,
// within p's timeout.
func (c *Client) fetchStatic(ctx context.Context, p *page, failed Code) (*document, error) {
	ctx, cancel := context.WithTimeout(ctx, p.job.Timeout)
	defer cancel()
	if err := c.checkPage(ctx, p.target); err != nil {
		return nil, err
	}
	client := c.guard.NewHTTPClient(guard.HTTPOptions{Proxy: p.job.Upstream})
	defer client.CloseIdleConnections()
	page, err := httpprobe.FetchPage(ctx, client, p.target.URL, true, MaxDocumentBytes)
	if errors.Is(err, httpprobe.ErrTooManyRedirects) {
		return nil, NewError(CodeUnableToConnect, err, "more than %d redirects, or a redirect loop", httpprobe.MaxRedirects)
	}
	if err != nil {
		return nil, mapHTTPError(err, failed)
	}
	if page.Truncated {
		// A truncated page is not the page: what its end holds (the
		// rest of its links, its JSON-LD) would be missing unsaid.
		return nil, tooLarge(failed, nil)
	}
	ct := page.Header.Get("Content-Type")
	if !isText(ct) {
		return nil, NewError(failed, nil, "the page is not an HTML document (%s)", ct)
	}
	doc, err := content.Parse(page.Body, ct, page.URL)
	if err != nil {
		return nil, NewError(failed, err, "the page could not be parsed")
	}
	return &document{doc: doc, visit: PageVisit{URL: p.target.URL.String(), RedirectedURL: page.URL.String()}}, nil
}

// tooLarge is the content operations' failure for a page past
// MaxDocumentBytes.
func tooLarge(failed Code, err error) *Error {
	return NewError(failed, err, "the page's document is larger than %d bytes", MaxDocumentBytes)
}

// isText reports whether a Content-Type is HTML or text (a missing one
// is sniffed as HTML, as browsers do).
func isText(contentType string) bool {
	if contentType == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (strings.HasPrefix(mt, "text/") || mt == "application/xhtml+xml")
}

// manifest fetches the page's web app manifest, when it names one,
// through the guard; nil when there is none or it cannot be had.
func (c *Client) manifest(ctx context.Context, p *page, manifest string) *content.Manifest {
	u, err := url.Parse(manifest)
	if manifest == "" || err != nil {
		return nil
	}
	page := c.fetchAsset(ctx, p, u, content.MaxManifestBytes)
	if page == nil {
		return nil
	}
	return content.ParseManifest(page.Body, page.URL)
}

// maxIconBytes is how much of a /favicon.ico is read to check it.
const maxIconBytes = 64 << 10

// defaultIcon looks for the site's icon where browsers look when a page
// names none, as metascraper-logo-favicon does: /favicon.ico, then
// /favicon.png, at the page's origin, then at its registrable domain's
// (www.example.com's example.com). Nil when there is none.
func (c *Client) defaultIcon(ctx context.Context, p *page, pageURL *url.URL) *content.Icon {
	hosts := []string{pageURL.Host}
	if domain, err := publicsuffix.EffectiveTLDPlusOne(pageURL.Hostname()); err == nil && domain != pageURL.Hostname() {
		hosts = append(hosts, domain)
	}
	for _, host := range hosts {
		for _, d := range content.DefaultIconPaths {
			u := &url.URL{Scheme: pageURL.Scheme, Host: host, Path: d.Path}
			page := c.fetchAsset(ctx, p, u, maxIconBytes)
			if page != nil && content.IsIcon(page.Header.Get("Content-Type"), page.Body, d.Types) {
				return &content.Icon{URL: page.URL.String(), Rel: "icon", Source: "default"}
			}
		}
	}
	return nil
}

// fetchAsset GETs one of the page's assets through the guard, within
// 5 s, redirects followed, reading at most maxBytes; nil when it cannot
// be had or its status is not 2xx.
func (c *Client) fetchAsset(ctx context.Context, p *page, u *url.URL, maxBytes int64) *httpprobe.Page {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	client := c.guard.NewHTTPClient(guard.HTTPOptions{Proxy: p.job.Upstream})
	defer client.CloseIdleConnections()
	page, err := httpprobe.FetchPage(ctx, client, u, true, maxBytes)
	if err != nil || len(page.Hops) == 0 || page.Hops[len(page.Hops)-1].Status/100 != 2 {
		return nil
	}
	return page
}

// MetaScrapeOptions are the options of MetaScrape and the API's body of
// /metascraping. The zero value renders the page in a desktop Chromium
// with ads blocked and returns JSON.
type MetaScrapeOptions struct {
	PageOptions `api:"blockAds=true,hideCookie=false,skipCaptcha=false"`
	// RenderJS reads the DOM after Chromium has rendered the page; off,
	// the page is one guarded HTTP GET and no browser is used.
	RenderJS Toggle `json:"renderJS" api:"default=true"`
	// Format is json (the metadata) or markdown (a readable summary).
	Format string `json:"format" api:"enum=json|markdown,default=json"`
	// FileOutput delivers the API's result as a file: data is its URL.
	// The library returns the result either way.
	FileOutput Toggle `json:"fileOutput" api:"default=false"`
}

// MetaScrapeResult is a page's metadata, the page visited and the
// settings used.
type MetaScrapeResult struct {
	Metadata *Metadata `json:"metadata"`
	// Markdown is the summary, when Settings.Format is markdown.
	Markdown  string `json:"markdown,omitempty"`
	PageVisit `json:"-"`
	// Settings are the options the page was read with, defaults filled
	// in.
	Settings MetaScrapeOptions `json:"-"`
}

// MetaScrape reads the metadata of the page at rawURL: meta tags, Open
// Graph (arrays kept), Twitter Card, JSON-LD (@graph flattened), icons
// (the manifest's included, and the site's /favicon.ico or /favicon.png
// when the page gives no logo), feeds and oEmbed links, with the headline
// fields chosen by content.Metadata's documented priority. Errors:
// CodeInvalidURL, CodeInvalidParameters, CodeProxyCountryUnsupported,
// CodeTargetNotAllowed, CodeUnableToConnect, CodeNoMetadata (the page
// has none at all), CodeBrowserUnavailable and CodeBusy (RenderJS only),
// CodeCrawlFailed.
func (c *Client) MetaScrape(ctx context.Context, rawURL string, opts MetaScrapeOptions) (*MetaScrapeResult, error) {
	return runPage(ctx, c, rawURL, &opts, &opts.PageOptions, pageOp{name: "MetaScrape", failed: CodeCrawlFailed}, func(ctx context.Context, p *page) (*MetaScrapeResult, error) {
		d, err := c.fetchDocument(ctx, p, docOptions{renderJS: opts.RenderJS.Bool()}, CodeCrawlFailed)
		if err != nil {
			return nil, err
		}
		res := &MetaScrapeResult{Metadata: content.ExtractMetadata(d.doc), PageVisit: d.visit, Settings: opts}
		if m := c.manifest(ctx, p, res.Metadata.Manifest); m != nil {
			res.Metadata.AddIcons(m.Icons...)
		}
		if res.Metadata.Empty() {
			return nil, NewError(CodeNoMetadata, nil, "the page has no title, meta tags, Open Graph, Twitter Card, JSON-LD or icons")
		}
		if res.Metadata.Logo == "" {
			if icon := c.defaultIcon(ctx, p, d.doc.URL); icon != nil {
				res.Metadata.AddIcons(*icon)
			}
		}
		if opts.Format == "markdown" {
			res.Markdown = res.Metadata.Markdown()
		}
		return res, nil
	})
}

// MetaScrape calls Client.MetaScrape on the default client.
func MetaScrape(ctx context.Context, rawURL string, opts MetaScrapeOptions) (*MetaScrapeResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).MetaScrape)
}
