package sitediag

import (
	"context"
	"io"
	"strings"

	"github.com/sitediag/sitediag/browser"
)

// DefaultPDFMargin is each margin of a PDF, in millimetres, when none is
// given.
const DefaultPDFMargin = 10.0

// minContentMM is the least room margins must leave on the paper.
const minContentMM = 10.0

// PDFMargin are page margins in millimetres.
type PDFMargin struct {
	Top    float64 `json:"top"`
	Bottom float64 `json:"bottom"`
	Right  float64 `json:"right"`
	Left   float64 `json:"left"`
}

// URL2PDFOptions are the options of URL2PDF. The zero value is an A4
// portrait PDF at scale 1 with 10 mm margins, as a desktop browser
// prints it.
type URL2PDFOptions struct {
	// PageOptions: for a PDF BlockAds, HideCookieBanners and SkipCaptcha
	// default to off.
	PageOptions
	// Format is letter, legal or a0–a6 (any case). Empty means a4.
	Format string
	// Orientation is portrait or landscape. Empty means portrait.
	Orientation string
	// Margin are the margins in millimetres (each at least 0, leaving at
	// least 10 mm of paper). Nil means 10 mm each.
	Margin *PDFMargin
	// Scale is the rendering scale, above 0 and at most 2; below
	// Chromium's least, 0.1, it is raised to 0.1. Zero means 1.
	Scale float64
	// AddTimestamp prints the time (UTC) in every page's footer.
	AddTimestamp bool
}

// URL2PDFSettings are URL2PDFOptions resolved, defaults filled in.
type URL2PDFSettings struct {
	PageSettings
	Format       string    `json:"format"`
	Orientation  string    `json:"orientation"`
	Scale        float64   `json:"scale"`
	Margin       PDFMargin `json:"margin"`
	AddTimestamp bool      `json:"addTimestamp"`
}

// URL2PDFResult is the PDF, streamed, the page visited and the settings
// used, which feed the API's meta.
type URL2PDFResult struct {
	// Body streams the PDF from the browser as it is printed. The caller
	// must read it to the end or close it; the browser job (and its
	// slot) lasts until then, bounded by the operation's deadline. A
	// failure while printing surfaces as a read error that is an *Error
	// with CodePDFConversionFailed.
	Body io.ReadCloser
	PageVisit
	Settings URL2PDFSettings
}

// URL2PDF renders the page at rawURL to a PDF in Chromium (backgrounds
// printed, the page's own CSS page size ignored). It returns once the
// page has loaded and printing has begun; the PDF streams through
// Body. Errors: CodeInvalidURL, CodeInvalidParameters,
// CodeProxyCountryUnsupported, CodeBrowserUnavailable, CodeBusy,
// CodeTargetNotAllowed, CodeUnableToConnect, CodePDFConversionFailed.
func (c *Client) URL2PDF(ctx context.Context, rawURL string, opts URL2PDFOptions) (_ *URL2PDFResult, err error) {
	ctx, end := c.startOp(ctx, "URL2PDF", rawURL, pageOptions(opts.PageOptions).str("format", opts.Format).str("orientation", opts.Orientation).num("scale", opts.Scale))
	defer end(&err)
	p, err := c.newPage(rawURL, opts.PageOptions, pageDefaults{})
	if err != nil {
		return nil, err
	}
	res := &URL2PDFResult{PageVisit: PageVisit{URL: p.target.URL.String()}}
	pdf, err := pdfSettings(p, opts, &res.Settings)
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.withTimeout(ctx)
	body, err := c.browser.Stream(ctx, p.job, func(ctx context.Context, j *browser.Job, w io.Writer) error {
		v, err := c.load(ctx, j, p)
		if err != nil {
			return err
		}
		res.loaded(v)
		res.BlockedRequests = j.Stats().Refused
		if opts.AddTimestamp {
			pdf.Timestamp = c.cfg.Now()
		}
		_, err = j.PDF(ctx, pdf, w)
		return err
	})
	if err != nil {
		cancel()
		return nil, mapBrowserError(err, CodePDFConversionFailed)
	}
	res.Body = &pdfBody{r: body, cancel: cancel}
	return res, nil
}

// pdfBody is URL2PDF's stream: its errors are the documented *Error,
// and the operation's context ends with it.
type pdfBody struct {
	r      io.ReadCloser
	cancel context.CancelFunc
}

func (b *pdfBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	switch {
	case err == io.EOF:
		b.cancel()
	case err != nil:
		b.cancel()
		err = mapBrowserError(err, CodePDFConversionFailed)
	}
	return n, err
}

func (b *pdfBody) Close() error {
	defer b.cancel()
	return b.r.Close()
}

// pdfSettings checks opts and returns the printer's options; set
// receives the settings.
func pdfSettings(p *page, opts URL2PDFOptions, set *URL2PDFSettings) (browser.PDFOptions, error) {
	var pdf browser.PDFOptions
	paper := browser.Paper(strings.ToLower(opts.Format))
	if paper == "" {
		paper = browser.A4
	}
	width, height, ok := paper.Size()
	if !ok {
		return pdf, InvalidParameter("format", "must be letter, legal, a0, a1, a2, a3, a4, a5 or a6")
	}
	orientation, err := oneOf("orientation", opts.Orientation, "portrait", "portrait", "landscape")
	if err != nil {
		return pdf, err
	}
	if orientation == "landscape" {
		width, height = height, width
	}
	scale := opts.Scale
	switch {
	case scale == 0:
		scale = 1
	case scale < 0 || scale > browser.MaxPDFScale:
		return pdf, InvalidParameter("scale", "must be greater than 0 and at most 2")
	case scale < browser.MinPDFScale:
		scale = browser.MinPDFScale
	}
	margin := PDFMargin{DefaultPDFMargin, DefaultPDFMargin, DefaultPDFMargin, DefaultPDFMargin}
	if opts.Margin != nil {
		margin = *opts.Margin
	}
	if margin.Top < 0 || margin.Bottom < 0 || margin.Left < 0 || margin.Right < 0 {
		return pdf, InvalidParameter("margin", "each margin must be 0 mm or more")
	}
	if margin.Top+margin.Bottom > height-minContentMM || margin.Left+margin.Right > width-minContentMM {
		return pdf, InvalidParameter("margin", "the margins must leave at least 10 mm of the paper")
	}
	pdf = browser.PDFOptions{
		Paper:     paper,
		Landscape: orientation == "landscape",
		Margins:   browser.Margins{Top: margin.Top, Bottom: margin.Bottom, Left: margin.Left, Right: margin.Right},
		Scale:     scale,
	}
	*set = URL2PDFSettings{
		PageSettings: p.settings,
		Format:       string(paper),
		Orientation:  orientation,
		Scale:        scale,
		Margin:       margin,
		AddTimestamp: opts.AddTimestamp,
	}
	return pdf, nil
}

// URL2PDF calls Client.URL2PDF on the default client.
func URL2PDF(ctx context.Context, rawURL string, opts URL2PDFOptions) (*URL2PDFResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).URL2PDF)
}
