package sitediag

import (
	"context"
	"io"
	"sync"

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
	// Device is "desktop" or "mobile" (see ScreenshotOptions). Empty
	// means desktop.
	Device string
	// ProxyCountry loads the page through the proxy configured for that
	// country. Empty means direct.
	ProxyCountry string
	// Format is letter, legal or a0–a6. Empty means a4.
	Format string
	// Orientation is portrait or landscape. Empty means portrait.
	Orientation string
	// Margin are the margins in millimetres (each at least 0, leaving at
	// least 10 mm of paper). Nil means 10 mm each.
	Margin *PDFMargin
	// Scale is the rendering scale, above 0 and at most 2; below
	// Chromium's least, 0.1, it is raised to 0.1. Zero means 1.
	Scale float64
	// HideCookieBanners hides the common consent banners.
	HideCookieBanners bool
	// SkipCaptcha waits, for a bounded time, for a bot challenge page to
	// clear by itself.
	SkipCaptcha bool
	// AddTimestamp prints the time (UTC) in every page's footer.
	AddTimestamp bool
}

// URL2PDFResult is the PDF, streamed, and the settings used, which feed
// the API's meta.
type URL2PDFResult struct {
	// Body streams the PDF from the browser as it is printed. The caller
	// must read it to the end or close it; the browser job (and its
	// slot) lasts until then, bounded by the operation's deadline. A
	// failure while printing surfaces as a read error that is an *Error
	// with CodePDFConversionFailed.
	Body io.ReadCloser
	// URL is the target as requested (normalised); RedirectedURL the
	// page's final URL.
	URL, RedirectedURL string
	// The settings used, defaults filled in.
	Device, Format, Orientation, ProxyCountry string
	Scale                                     float64
	Margin                                    PDFMargin
	HideCookie, SkipCaptcha, AddTimestamp     bool
	// BlockedRequests counts what the page tried to load that the SSRF
	// policy refused.
	BlockedRequests int
}

// URL2PDF renders the page at rawURL to a PDF in Chromium (backgrounds
// printed, the page's own CSS page size ignored). It returns once the
// page has loaded and printing has begun; the PDF streams through
// Body. Errors: CodeInvalidURL, CodeInvalidParameters,
// CodeProxyCountryUnsupported, CodeBrowserUnavailable, CodeBusy,
// CodeTargetNotAllowed, CodeUnableToConnect, CodePDFConversionFailed.
func (c *Client) URL2PDF(ctx context.Context, rawURL string, opts URL2PDFOptions) (*URL2PDFResult, error) {
	t, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	res, po, pdf, err := c.pdfSettings(opts)
	if err != nil {
		return nil, err
	}
	res.URL = t.URL.String()
	ctx, cancel := c.withTimeout(ctx)
	pr, pw := io.Pipe()
	// A caller that neither reads nor closes Body cannot hold the job
	// past the deadline. The write side is closed, so that a read sees
	// the documented *Error rather than io.ErrClosedPipe.
	stop := context.AfterFunc(ctx, func() { pw.CloseWithError(mapBrowserError(ctx.Err(), CodePDFConversionFailed)) })
	ready := make(chan error, 1)
	go func() {
		defer cancel()
		w := &startSignal{w: pw, ready: ready}
		err := c.browser.Do(ctx, po.job, func(ctx context.Context, j *browser.Job) error {
			if err := c.checkPage(ctx, t); err != nil {
				return err
			}
			v, err := j.Load(ctx, res.URL, po.load)
			if err != nil {
				return err
			}
			res.RedirectedURL, res.BlockedRequests = v.URL, j.Stats().Refused
			if opts.AddTimestamp {
				pdf.Timestamp = c.cfg.Now()
			}
			_, err = j.PDF(ctx, pdf, w)
			return err
		})
		stop()
		if err != nil {
			err = mapBrowserError(err, CodePDFConversionFailed)
		}
		if !w.signal(err) {
			pw.CloseWithError(err)
		} else {
			pw.Close()
		}
	}()
	if err := <-ready; err != nil {
		return nil, err
	}
	res.Body = pr
	return res, nil
}

// startSignal reports, once, whether the PDF started (its first write)
// or the job ended before it did.
type startSignal struct {
	w     io.Writer
	ready chan<- error
	once  sync.Once
}

func (s *startSignal) Write(p []byte) (int, error) {
	s.signal(nil)
	return s.w.Write(p)
}

// signal sends err as the start signal if none was sent, and reports
// whether it did.
func (s *startSignal) signal(err error) (sent bool) {
	s.once.Do(func() {
		s.ready <- err
		sent = true
	})
	return sent
}

// pdfSettings checks opts and turns them into the browser's options and
// the result's echo of them.
func (c *Client) pdfSettings(opts URL2PDFOptions) (*URL2PDFResult, pageOptions, browser.PDFOptions, error) {
	var pdf browser.PDFOptions
	paper := browser.Paper(opts.Format)
	if paper == "" {
		paper = browser.A4
	}
	width, height, ok := paper.Size()
	if !ok {
		return nil, pageOptions{}, pdf, InvalidParameter("format", "must be letter, legal, a0, a1, a2, a3, a4, a5 or a6")
	}
	orientation := opts.Orientation
	switch orientation {
	case "":
		orientation = "portrait"
	case "portrait":
	case "landscape":
		width, height = height, width
	default:
		return nil, pageOptions{}, pdf, InvalidParameter("orientation", "must be portrait or landscape")
	}
	scale := opts.Scale
	switch {
	case scale == 0:
		scale = 1
	case scale < 0 || scale > browser.MaxPDFScale:
		return nil, pageOptions{}, pdf, InvalidParameter("scale", "must be greater than 0 and at most 2")
	case scale < browser.MinPDFScale:
		scale = browser.MinPDFScale
	}
	margin := PDFMargin{DefaultPDFMargin, DefaultPDFMargin, DefaultPDFMargin, DefaultPDFMargin}
	if opts.Margin != nil {
		margin = *opts.Margin
	}
	if margin.Top < 0 || margin.Bottom < 0 || margin.Left < 0 || margin.Right < 0 {
		return nil, pageOptions{}, pdf, InvalidParameter("margin", "each margin must be 0 mm or more")
	}
	if margin.Top+margin.Bottom > height-minContentMM || margin.Left+margin.Right > width-minContentMM {
		return nil, pageOptions{}, pdf, InvalidParameter("margin", "the margins must leave at least 10 mm of the paper")
	}
	po, err := c.newPageOptions(opts.Device, opts.ProxyCountry)
	if err != nil {
		return nil, pageOptions{}, pdf, err
	}
	po.load = browser.LoadOptions{HideCookieBanners: opts.HideCookieBanners, WaitForChallenge: opts.SkipCaptcha}
	pdf = browser.PDFOptions{
		Paper:     paper,
		Landscape: orientation == "landscape",
		Margins:   browser.Margins{Top: margin.Top, Bottom: margin.Bottom, Left: margin.Left, Right: margin.Right},
		Scale:     scale,
	}
	res := &URL2PDFResult{
		Device:       deviceName(po.job.Device),
		Format:       string(paper),
		Orientation:  orientation,
		ProxyCountry: opts.ProxyCountry,
		Scale:        scale,
		Margin:       margin,
		HideCookie:   opts.HideCookieBanners,
		SkipCaptcha:  opts.SkipCaptcha,
		AddTimestamp: opts.AddTimestamp,
	}
	return res, po, pdf, nil
}

// URL2PDF calls Client.URL2PDF on the default client.
func URL2PDF(ctx context.Context, rawURL string, opts URL2PDFOptions) (*URL2PDFResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).URL2PDF)
}
