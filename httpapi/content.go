package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/sitediag/sitediag"
)

type metaScrapeRequest struct {
	URL string `json:"url"`
	sitediag.PageOptions
	RenderJS   sitediag.Toggle `json:"renderJS"`
	Format     string          `json:"format" api:"enum=json|markdown,default=json"`
	FileOutput bool            `json:"fileOutput"`
}

type metaScrapeMeta struct {
	sitediag.PageVisit
	sitediag.MetaScrapeSettings
	FileOutput bool       `json:"fileOutput"`
	Test       testRecord `json:"test"`
}

func (h *Handler) metaScrape(ctx context.Context, req *metaScrapeRequest, test testRecord) (*response, error) {
	res, err := h.client.MetaScrape(ctx, req.URL, sitediag.MetaScrapeOptions{
		PageOptions: req.PageOptions, RenderJS: req.RenderJS, Format: req.Format,
	})
	if err != nil {
		return nil, err
	}
	var data any = res.Metadata
	ext := "json"
	if res.Settings.Format == "markdown" {
		data, ext = res.Markdown, "md"
	}
	if req.FileOutput {
		if data, err = h.storeValue(ctx, ext, data); err != nil {
			return nil, err
		}
	}
	meta := metaScrapeMeta{PageVisit: res.PageVisit, MetaScrapeSettings: res.Settings, FileOutput: req.FileOutput, Test: test}
	return &response{Message: pageMessage(res.PageVisit), Meta: meta, Data: data}, nil
}

// formatList is web-scraping's format: one string or an array of them.
type formatList []string

func (f *formatList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*f = formatList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return &json.UnmarshalTypeError{Value: "value", Type: jsonStringsType}
	}
	*f = many
	return nil
}

type webScrapeRequest struct {
	URL string `json:"url"`
	sitediag.PageOptions
	RenderJS   sitediag.Toggle `json:"renderJS"`
	Format     formatList      `json:"format"`
	FileOutput bool            `json:"fileOutput"`
	// WaitTime is how long to wait after the page loads, in seconds.
	WaitTime         float64                    `json:"waitTime" api:"min=0,max=30"`
	WaitFor          string                     `json:"waitFor"`
	ExtractionMode   string                     `json:"extractionMode" api:"enum=default|cssSchema,default=default"`
	ExtractionSchema *sitediag.ExtractionSchema `json:"extractionSchema"`
}

type webScrapeMeta struct {
	sitediag.PageVisit
	sitediag.WebScrapeSettings
	FileOutput   bool       `json:"fileOutput"`
	WaitForFound *bool      `json:"waitForFound,omitempty"`
	Test         testRecord `json:"test"`
}

func (h *Handler) webScrape(ctx context.Context, req *webScrapeRequest, test testRecord) (*response, error) {
	opts := sitediag.WebScrapeOptions{
		PageOptions: req.PageOptions,
		RenderJS:    req.RenderJS,
		WaitTime:    time.Duration(req.WaitTime * float64(time.Second)),
		WaitFor:     req.WaitFor,
	}
	for _, f := range req.Format {
		opts.Formats = append(opts.Formats, sitediag.ScrapeFormat(f))
	}
	switch strings.ToLower(req.ExtractionMode) {
	case "", "default":
		if req.ExtractionSchema != nil {
			return nil, sitediag.InvalidParameter("extractionSchema", "is used only with extractionMode cssSchema")
		}
	case "cssschema":
		if req.ExtractionSchema == nil {
			return nil, sitediag.InvalidParameter("extractionSchema", "is required with extractionMode cssSchema")
		}
		opts.Schema = req.ExtractionSchema
	default:
		return nil, sitediag.InvalidParameter("extractionMode", "must be default or cssSchema")
	}
	res, err := h.client.WebScrape(ctx, req.URL, opts)
	if err != nil {
		return nil, err
	}
	formats := res.Settings.Formats
	var data any = res.Content
	ext := "json"
	if len(formats) == 1 {
		data = res.Content[formats[0]]
		ext = formatExt(formats[0])
	}
	if req.FileOutput {
		if data, err = h.storeValue(ctx, ext, data); err != nil {
			return nil, err
		}
	}
	meta := webScrapeMeta{PageVisit: res.PageVisit, WebScrapeSettings: res.Settings, FileOutput: req.FileOutput,
		WaitForFound: res.WaitForFound, Test: test}
	return &response{Message: pageMessage(res.PageVisit), Meta: meta, Data: data}, nil
}

// formatExt is the file extension of a format's artifact.
func formatExt(f sitediag.ScrapeFormat) string {
	switch f {
	case "html", "html-llm":
		return "html"
	case "markdown", "markdown-llm":
		return "md"
	case "text", "text-llm":
		return "txt"
	}
	return "json"
}

// storeValue stores v as an artifact with extension ext: a string as it
// is, anything else as JSON. It returns the artifact's URL.
func (h *Handler) storeValue(ctx context.Context, ext string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return "", err
		}
		s = string(b)
	}
	return h.storeArtifact(ctx, ext, bytes.NewReader([]byte(s)))
}
