package sitediag

import (
	"context"
	"io"

	"github.com/sitediag/sitediag/browser"
)

// minContentMM is the least room margins must leave on the paper.
const minContentMM = 10.0

// PDFMargin are page margins. A nil side is 10 mm.
type PDFMargin struct {
	// Top is the top margin in millimetres.
	Top *float64 `json:"top" api:"min=0,default=10"`
	// Bottom is the bottom margin in millimetres.
	Bottom *float64 `json:"bottom" api:"min=0,default=10"`
	// Right is the right margin in millimetres.
	Right *float64 `json:"right" api:"min=0,default=10"`
	// Left is the left margin in millimetres.
	Left *float64 `json:"left" api:"min=0,default=10"`
}

// URL2PDFOptions are the options of URL2PDF and the API's body of
// /url2pdf. The zero value is an A4 portrait PDF at scale 1 with 10 mm
// margins, as a desktop browser prints it.
type URL2PDFOptions struct {
	PageOptions `api:"blockAds=false,hideCookie=false,skipCaptcha=false"`
	// Format is the paper format.
	Format string `json:"format" api:"enum=letter|legal|a0|a1|a2|a3|a4|a5|a6,default=a4"`
	// Orientation is the paper's orientation.
	Orientation string `json:"orientation" api:"enum=portrait|landscape,default=portrait"`
	// Margin are the margins in millimetres; together they must leave at
	// least 10 mm of the paper each way.
	Margin PDFMargin `json:"margin"`
	// Scale is the rendering scale (Chromium's range).
	Scale float64 `json:"scale" api:"min=0.1,max=2,default=1"`
	// AddTimestamp prints the time (UTC) in every page's footer.
	AddTimestamp Toggle `json:"addTimestamp" api:"default=false"`
}

// URL2PDFResult is the PDF, streamed, the page visited and the settings
// used.
type URL2PDFResult struct {
	// Body streams the PDF from the browser as it is printed. The caller
	// must read it to the end or close it; the browser job (and its
	// slot) lasts until then, bounded by the operation's deadline. A
	// failure while printing surfaces as a read error that is an *Error
	// with CodePDFConversionFailed.
	Body      io.ReadCloser `json:"-"`
	PageVisit `json:"-"`
	// Settings are the options the PDF is printed with, defaults filled
	// in.
	Settings URL2PDFOptions `json:"-"`
}

// URL2PDF renders the page at rawURL to a PDF in Chromium (backgrounds
// printed, the page's own CSS page size ignored). It returns once the
// page has loaded and printing has begun; the PDF streams through
// Body. Errors: CodeInvalidURL, CodeInvalidParameters,
// CodeProxyCountryUnsupported, CodeBrowserUnavailable, CodeBusy,
// CodeTargetNotAllowed, CodeUnableToConnect, CodePDFConversionFailed.
func (c *Client) URL2PDF(ctx context.Context, rawURL string, opts URL2PDFOptions) (_ *URL2PDFResult, err error) {
	ctx, end := c.startOp(ctx, "URL2PDF", rawURL, opts)
	defer end(&err)
	if err := c.resolve(&opts); err != nil {
		return nil, err
	}
	p, err := c.newPage(rawURL, &opts.PageOptions, 0)
	if err != nil {
		return nil, err
	}
	pdf, err := pdfOptions(opts)
	if err != nil {
		return nil, err
	}
	res := &URL2PDFResult{PageVisit: PageVisit{URL: p.target.URL.String()}, Settings: opts}
	ctx, cancel := c.withTimeout(ctx)
	body, err := c.browser.Stream(ctx, p.job, func(ctx context.Context, j *browser.Job, w io.Writer) error {
		v, err := c.load(ctx, j, p)
		if err != nil {
			return err
		}
		res.loaded(v)
		res.BlockedRequests = j.Stats().Refused
		if opts.AddTimestamp.Bool() {
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

// pdfOptions checks that the resolved opts' margins leave room on the
// paper and returns the printer's options.
func pdfOptions(opts URL2PDFOptions) (browser.PDFOptions, error) {
	paper := browser.Paper(opts.Format)
	width, height, _ := paper.Size()
	landscape := opts.Orientation == "landscape"
	if landscape {
		width, height = height, width
	}
	m := browser.Margins{Top: *opts.Margin.Top, Bottom: *opts.Margin.Bottom, Left: *opts.Margin.Left, Right: *opts.Margin.Right}
	if m.Top+m.Bottom > height-minContentMM || m.Left+m.Right > width-minContentMM {
		return browser.PDFOptions{}, InvalidParameter("margin", "the margins must leave at least 10 mm of the paper")
	}
	return browser.PDFOptions{Paper: paper, Landscape: landscape, Margins: m, Scale: opts.Scale}, nil
}

// URL2PDF calls Client.URL2PDF on the default client.
func URL2PDF(ctx context.Context, rawURL string, opts URL2PDFOptions) (*URL2PDFResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).URL2PDF)
}
