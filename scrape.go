package sitediag

import (
	"context"
	"errors"
	"mime"
	"net/url"
	"strings"
	"time"

	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/content"
	"github.com/sitediag/sitediag/internal/guard"
	"github.com/sitediag/sitediag/net/httpprobe"
)

// Limits of the page-content operations (MetaScrape, WebScrape).
const (
	// MaxDocumentBytes is the most of a page that is read: the body of
	// the HTTP response, or the rendered DOM serialised.
	MaxDocumentBytes = 5 << 20
	// MaxWaitTime is the longest WebScrapeOptions.WaitTime.
	MaxWaitTime = 30 * time.Second
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
	final, err := url.Parse(visit.RedirectedURL)
	if err != nil {
		return nil, NewError(failed, err, "the page's final URL does not parse")
	}
	if d.doc, err = content.ParseText(html, final); err != nil {
		return nil, NewError(failed, err, "the page could not be parsed")
	}
	d.visit = visit
	return d, nil
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
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	client := c.guard.NewHTTPClient(guard.HTTPOptions{Proxy: p.job.Upstream})
	defer client.CloseIdleConnections()
	page, err := httpprobe.FetchPage(ctx, client, u, true, content.MaxManifestBytes)
	if err != nil {
		return nil
	}
	return content.ParseManifest(page.Body, page.URL)
}

// MetaScrapeOptions are the options of MetaScrape. The zero value renders
// the page in a desktop Chromium with ads blocked and returns JSON.
type MetaScrapeOptions struct {
	// PageOptions: BlockAds defaults to on; HideCookieBanners and
	// SkipCaptcha to off.
	PageOptions
	// RenderJS reads the DOM after Chromium has rendered the page; off,
	// the page is one guarded HTTP GET and no browser is used. Unset
	// means on.
	RenderJS Toggle
	// Format is json or markdown (a readable summary). Empty means json.
	Format string
}

// MetaScrapeSettings are MetaScrapeOptions resolved.
type MetaScrapeSettings struct {
	PageSettings
	RenderJS bool   `json:"renderJS"`
	Format   string `json:"format"`
}

// MetaScrapeResult is a page's metadata, the page visited and the
// settings used.
type MetaScrapeResult struct {
	Metadata *Metadata
	// Markdown is the summary, when Settings.Format is markdown.
	Markdown string
	PageVisit
	Settings MetaScrapeSettings
}

// MetaScrape reads the metadata of the page at rawURL: meta tags, Open
// Graph (arrays kept), Twitter Card, JSON-LD (@graph flattened), icons
// (the manifest's included), feeds and oEmbed links, with the headline
// fields chosen by content.Metadata's documented priority. Errors:
// CodeInvalidURL, CodeInvalidParameters, CodeProxyCountryUnsupported,
// CodeTargetNotAllowed, CodeUnableToConnect, CodeNoMetadata (the page
// has none at all), CodeBrowserUnavailable and CodeBusy (RenderJS only),
// CodeCrawlFailed.
func (c *Client) MetaScrape(ctx context.Context, rawURL string, opts MetaScrapeOptions) (_ *MetaScrapeResult, err error) {
	ctx, end := c.startOp(ctx, "MetaScrape", rawURL, pageOptions(opts.PageOptions).toggle("render_js", opts.RenderJS).str("format", opts.Format))
	defer end(&err)
	p, err := c.newPage(rawURL, opts.PageOptions, pageDefaults{blockAds: true})
	if err != nil {
		return nil, err
	}
	format, err := oneOf("format", opts.Format, "json", "json", "markdown")
	if err != nil {
		return nil, err
	}
	res := &MetaScrapeResult{Settings: MetaScrapeSettings{PageSettings: p.settings, RenderJS: opts.RenderJS.Or(true), Format: format}}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	d, err := c.fetchDocument(ctx, p, docOptions{renderJS: res.Settings.RenderJS}, CodeCrawlFailed)
	if err != nil {
		return nil, err
	}
	res.PageVisit = d.visit
	res.Metadata = content.ExtractMetadata(d.doc)
	if m := c.manifest(ctx, p, res.Metadata.Manifest); m != nil {
		res.Metadata.Icons = append(res.Metadata.Icons, m.Icons...)
	}
	if res.Metadata.Empty() {
		return nil, NewError(CodeNoMetadata, nil, "the page has no title, meta tags, Open Graph, Twitter Card, JSON-LD or icons")
	}
	if format == "markdown" {
		res.Markdown = res.Metadata.Markdown()
	}
	return res, nil
}

// MetaScrape calls Client.MetaScrape on the default client.
func MetaScrape(ctx context.Context, rawURL string, opts MetaScrapeOptions) (*MetaScrapeResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).MetaScrape)
}
