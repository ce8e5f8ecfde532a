package sitediag

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sitediag/sitediag/content"
)

// MaxFormats is the most formats one WebScrape returns.
const MaxFormats = 3

// ScrapeFormat is a form WebScrape returns the page in: html, markdown,
// text, json, or the main content only as html-llm, markdown-llm or
// text-llm.
type ScrapeFormat = content.Format

// ExtractionSchema is a CSS extraction schema (Crawl4AI's shape); see
// content.Schema.
type ExtractionSchema = content.Schema

// WebScrapeOptions are the options of WebScrape. The zero value renders
// the page in a desktop Chromium with ads blocked and returns its HTML.
type WebScrapeOptions struct {
	// PageOptions: BlockAds defaults to on; HideCookieBanners and
	// SkipCaptcha to off.
	PageOptions
	// RenderJS renders the page in Chromium; off, it is one guarded HTTP
	// GET. Unset means on.
	RenderJS Toggle
	// Formats are up to MaxFormats formats. Empty means html (json with
	// a Schema).
	Formats []ScrapeFormat
	// WaitTime (up to 30 s) is waited after the page has loaded
	// (RenderJS only).
	WaitTime time.Duration
	// WaitFor is a CSS selector whose element is waited for, up to
	// WaitForTimeout, after WaitTime (RenderJS only).
	WaitFor string
	// Schema, if set, extracts objects with CSS selectors
	// (extractionMode cssSchema): the json format then gives them.
	Schema *ExtractionSchema
}

// WebScrapeSettings are WebScrapeOptions resolved.
type WebScrapeSettings struct {
	PageSettings
	RenderJS       bool           `json:"renderJS"`
	Formats        []ScrapeFormat `json:"format"`
	WaitTime       float64        `json:"waitTime"` // seconds
	WaitFor        string         `json:"waitFor,omitempty"`
	ExtractionMode string         `json:"extractionMode"`
}

// WebScrapeResult is the page in each format asked for.
type WebScrapeResult struct {
	// Content maps each format to the page in it: a string, or for json
	// a *content.Outline, or with a Schema a map of the schema's name to
	// the extracted objects.
	Content map[ScrapeFormat]any
	PageVisit
	Settings WebScrapeSettings
	// WaitForFound says whether WaitFor's element appeared (nil when
	// none was asked for).
	WaitForFound *bool
}

// WebScrape fetches the page at rawURL (rendered in Chromium, or with one
// guarded GET) and returns it in each of opts.Formats. The -llm formats
// are the main content as Readability (codeberg.org/readeck/go-readability)
// finds it; Markdown comes from html-to-markdown. Errors: CodeInvalidURL,
// CodeInvalidParameters, CodeProxyCountryUnsupported,
// CodeTargetNotAllowed, CodeUnableToConnect, CodeBrowserUnavailable and
// CodeBusy (RenderJS only), CodeCrawlFailed (also when an -llm format
// finds no main content).
func (c *Client) WebScrape(ctx context.Context, rawURL string, opts WebScrapeOptions) (_ *WebScrapeResult, err error) {
	ctx, end := c.startOp(ctx, "WebScrape", rawURL, pageOptions(opts.PageOptions).toggle("render_js", opts.RenderJS).strs("format", stringsOf(opts.Formats)).
		seconds("wait_time", opts.WaitTime).str("wait_for", opts.WaitFor).flag("extraction_schema", opts.Schema != nil))
	defer end(&err)
	p, err := c.newPage(rawURL, opts.PageOptions, pageDefaults{blockAds: true})
	if err != nil {
		return nil, err
	}
	set, err := webScrapeSettings(p, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	d, err := c.fetchDocument(ctx, p, docOptions{renderJS: set.RenderJS, waitTime: opts.WaitTime, waitFor: opts.WaitFor}, CodeCrawlFailed)
	if err != nil {
		return nil, err
	}
	res := &WebScrapeResult{Content: map[ScrapeFormat]any{}, PageVisit: d.visit, Settings: set, WaitForFound: d.waitForFound}
	for _, f := range set.Formats {
		if f == content.JSON && opts.Schema != nil {
			res.Content[f] = map[string]any{opts.Schema.Name: opts.Schema.Extract(d.doc)}
			continue
		}
		v, err := content.Render(d.doc, f)
		if errors.Is(err, content.ErrNoContent) {
			return nil, NewError(CodeCrawlFailed, err, "%s: the page has no main content to extract", f)
		}
		if err != nil {
			return nil, NewError(CodeCrawlFailed, err, "%s: the page could not be converted", f)
		}
		res.Content[f] = v
	}
	return res, nil
}

// webScrapeSettings checks opts.
func webScrapeSettings(p *page, opts WebScrapeOptions) (WebScrapeSettings, error) {
	set := WebScrapeSettings{PageSettings: p.settings, RenderJS: opts.RenderJS.Or(true), ExtractionMode: "default",
		WaitTime: opts.WaitTime.Seconds(), WaitFor: opts.WaitFor}
	if len(opts.Formats) > MaxFormats {
		return set, InvalidParameter("format", fmt.Sprintf("at most %d formats", MaxFormats))
	}
	for _, f := range opts.Formats {
		f = ScrapeFormat(strings.ToLower(string(f)))
		if !slices.Contains(content.Formats(), f) {
			return set, InvalidParameter("format", fmt.Sprintf("%q is not one of html, markdown, text, json, html-llm, markdown-llm, text-llm", f))
		}
		if slices.Contains(set.Formats, f) {
			return set, InvalidParameter("format", fmt.Sprintf("%q is given twice", f))
		}
		set.Formats = append(set.Formats, f)
	}
	if len(set.Formats) == 0 {
		set.Formats = []ScrapeFormat{content.HTML}
		if opts.Schema != nil {
			set.Formats = []ScrapeFormat{content.JSON}
		}
	}
	if opts.WaitTime < 0 || opts.WaitTime > MaxWaitTime {
		return set, InvalidParameter("waitTime", "must be between 0 and 30 seconds")
	}
	if opts.Schema != nil {
		if err := opts.Schema.Check(); err != nil {
			var se *content.SchemaError
			if errors.As(err, &se) {
				return set, InvalidParameter("extractionSchema."+se.Field, se.Problem)
			}
			return set, InvalidParameter("extractionSchema", err.Error())
		}
		set.ExtractionMode = "cssSchema"
		if !slices.Contains(set.Formats, content.JSON) {
			return set, InvalidParameter("format", "must include json when extractionMode is cssSchema")
		}
	}
	return set, nil
}

// WebScrape calls Client.WebScrape on the default client.
func WebScrape(ctx context.Context, rawURL string, opts WebScrapeOptions) (*WebScrapeResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).WebScrape)
}
