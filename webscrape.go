package sitediag

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/sitediag/sitediag/content"
)

// ScrapeFormat is a form WebScrape returns the page in: html, markdown,
// text, json, or the main content only as html-llm, markdown-llm or
// text-llm.
type ScrapeFormat = content.Format

// ScrapeFormats are the formats WebScrape returns. In JSON they are one
// string or an array of them.
type ScrapeFormats []ScrapeFormat

// UnmarshalJSON reads one format or an array of them.
func (f *ScrapeFormats) UnmarshalJSON(b []byte) error {
	var one ScrapeFormat
	if err := json.Unmarshal(b, &one); err == nil {
		*f = ScrapeFormats{one}
		return nil
	}
	var many []ScrapeFormat
	if err := json.Unmarshal(b, &many); err != nil {
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			return err
		}
		return &json.UnmarshalTypeError{Value: typeErr.Value, Type: reflect.TypeFor[[]string]()}
	}
	*f = many
	return nil
}

// ExtractionSchema is a CSS extraction schema (Crawl4AI's shape); see
// content.Schema.
type ExtractionSchema = content.Schema

// WebScrapeOptions are the options of WebScrape and the API's body of
// /web-scraping. The zero value renders the page in a desktop Chromium
// with ads blocked and returns its HTML.
type WebScrapeOptions struct {
	PageOptions `api:"blockAds=true,hideCookie=false,skipCaptcha=false"`
	// RenderJS renders the page in Chromium; off, it is one guarded HTTP
	// GET.
	RenderJS Toggle `json:"renderJS" api:"default=true"`
	// Format are the formats returned, each once. Empty means html (json
	// with extractionMode cssSchema).
	Format ScrapeFormats `json:"format" api:"enum=html|markdown|text|json|html-llm|markdown-llm|text-llm,maxItems=3"`
	// FileOutput delivers the API's result as a file: data is its URL.
	// The library returns the result either way.
	FileOutput Toggle `json:"fileOutput" api:"default=false"`
	// WaitTime, in seconds, is waited after the page has loaded
	// (renderJS only).
	WaitTime Seconds `json:"waitTime" api:"min=0,max=30"`
	// WaitFor is a CSS selector whose element is waited for, up to
	// WaitForTimeout, after waitTime (renderJS only).
	WaitFor string `json:"waitFor"`
	// ExtractionMode cssSchema extracts objects with extractionSchema's
	// CSS selectors: the json format then gives them.
	ExtractionMode string `json:"extractionMode" api:"enum=default|cssSchema,default=default"`
	// ExtractionSchema is the schema of extractionMode cssSchema.
	ExtractionSchema *ExtractionSchema `json:"extractionSchema"`
}

// WebScrapeResult is the page in each format asked for.
type WebScrapeResult struct {
	// Content maps each format to the page in it: a string, or for json
	// a *content.Outline, or with a schema a map of the schema's name to
	// the extracted objects.
	Content   map[ScrapeFormat]any `json:"content"`
	PageVisit `json:"-"`
	// Settings are the options the page was read with, defaults filled
	// in.
	Settings WebScrapeOptions `json:"-"`
	// WaitForFound says whether waitFor's element appeared (nil when
	// none was asked for).
	WaitForFound *bool `json:"waitForFound,omitempty"`
}

// WebScrape fetches the page at rawURL (rendered in Chromium, or with one
// guarded GET) and returns it in each of opts.Formats. The -llm formats
// are the main content as Readability (codeberg.org/readeck/go-readability)
// finds it; Markdown comes from html-to-markdown. Errors: CodeInvalidURL,
// CodeInvalidParameters, CodeProxyCountryUnsupported,
// CodeTargetNotAllowed, CodeUnableToConnect, CodeBrowserUnavailable and
// CodeBusy (RenderJS only), CodeCrawlFailed (also when an -llm format
// finds no main content).
func (c *Client) WebScrape(ctx context.Context, rawURL string, opts WebScrapeOptions) (*WebScrapeResult, error) {
	return runPage(ctx, c, rawURL, &opts, &opts.PageOptions, pageOp{name: "WebScrape", failed: CodeCrawlFailed}, func(ctx context.Context, p *page) (*WebScrapeResult, error) {
		d, err := c.fetchDocument(ctx, p, docOptions{renderJS: opts.RenderJS.Bool(), waitTime: opts.WaitTime.Duration(), waitFor: opts.WaitFor}, CodeCrawlFailed)
		if err != nil {
			return nil, err
		}
		res := &WebScrapeResult{Content: map[ScrapeFormat]any{}, PageVisit: d.visit, Settings: opts, WaitForFound: d.waitForFound}
		schema := opts.ExtractionSchema
		for _, f := range opts.Format {
			if f == content.JSON && schema != nil {
				res.Content[f] = map[string]any{schema.Name: schema.Extract(d.doc)}
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
	})
}

// check checks what the options' tags cannot say: no format twice, and
// a schema exactly with extractionMode cssSchema; it fills in the
// default format.
func (opts *WebScrapeOptions) check() error {
	for i, f := range opts.Format {
		if slices.Contains(opts.Format[:i], f) {
			return InvalidParameter("format", fmt.Sprintf("%q is given twice", f))
		}
	}
	schema := opts.ExtractionSchema
	switch {
	case opts.ExtractionMode == "default" && schema != nil:
		return InvalidParameter("extractionSchema", "is used only with extractionMode cssSchema")
	case opts.ExtractionMode == "cssSchema" && schema == nil:
		return InvalidParameter("extractionSchema", "is required with extractionMode cssSchema")
	}
	if len(opts.Format) == 0 {
		opts.Format = ScrapeFormats{content.HTML}
		if schema != nil {
			opts.Format = ScrapeFormats{content.JSON}
		}
	}
	if schema == nil {
		return nil
	}
	if err := schema.Check(); err != nil {
		var se *content.SchemaError
		if errors.As(err, &se) {
			return InvalidParameter("extractionSchema."+se.Field, se.Problem)
		}
		return InvalidParameter("extractionSchema", err.Error())
	}
	if !slices.Contains(opts.Format, content.JSON) {
		return InvalidParameter("format", "must include json when extractionMode is cssSchema")
	}
	return nil
}

// WebScrape calls Client.WebScrape on the default client.
func WebScrape(ctx context.Context, rawURL string, opts WebScrapeOptions) (*WebScrapeResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).WebScrape)
}
