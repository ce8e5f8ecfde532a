package sitediag

import (
	"cmp"
	"context"
	"time"

	"github.com/sitediag/sitediag/browser"
)

// Screenshot limits (inclusive).
const (
	MinViewportWidth  = 320
	MaxViewportWidth  = 3840
	MinViewportHeight = 240
	MaxViewportHeight = 2160
	MinPageHeight     = 100
	MaxPageHeight     = 5000
	MaxDelay          = 10 * time.Second
	MinQuality        = 10
	MaxQuality        = 100
	MinScaleFactor    = 0.1
	MaxScaleFactor    = 3
)

// ScreenshotOptions are the options of Screenshot. The zero value is a
// PNG of a 1366×768 desktop viewport with ads blocked, cookie banners
// hidden and a wait for bot challenges; zero numbers mean the defaults.
type ScreenshotOptions struct {
	// PageOptions: for a screenshot BlockAds, HideCookieBanners and
	// SkipCaptcha default to on.
	PageOptions
	// Type is png, jpeg or webp. Empty means png.
	Type string
	// FullPage captures the whole page (up to browser.MaxCaptureSide
	// device pixels tall) instead of the viewport.
	FullPage bool
	// AddTimestamp shows the capture time (UTC) in a corner.
	AddTimestamp bool
	// ViewportWidth (320–3840) and ViewportHeight (240–2160) are the
	// viewport in CSS pixels. Zero means the device's.
	ViewportWidth, ViewportHeight int
	// PageHeight (100–5000) is the height captured from the top of the
	// page in CSS pixels; with FullPage, the most captured. Zero means
	// the viewport's (or the full page's).
	PageHeight int
	// Theme is light, dark or auto (the page's own). Empty means auto.
	Theme string
	// Delay (up to 10 s) is waited after the page has loaded.
	Delay time.Duration
	// DisableAnimations finishes and turns off CSS animations and
	// transitions, and asks for reduced motion.
	DisableAnimations bool
	// Quality (10–100) is the JPEG or WebP quality. Zero means 90.
	Quality int
	// ScaleFactor (0.1–3) is the device scale factor. Zero means the
	// device's (1 desktop, 3 mobile).
	ScaleFactor float64
	// Selector captures only the first element it matches.
	Selector string
	// FallbackToFullPage captures the full page when Selector matches
	// nothing, instead of failing with INVALID_PARAMETERS.
	FallbackToFullPage bool
	// RemoveBackground makes the default page background transparent
	// (png and webp keep the alpha channel).
	RemoveBackground bool
	// HighlightLinks outlines every link.
	HighlightLinks bool
	// ResizeViewport takes captures taller than the viewport by resizing
	// the viewport (captureBeyondViewport false) instead of capturing
	// beyond it.
	ResizeViewport bool
}

// ScreenshotSettings are ScreenshotOptions resolved, defaults filled in.
type ScreenshotSettings struct {
	PageSettings
	Type                  string  `json:"type"`
	FullPage              bool    `json:"fullPage"`
	AddTimestamp          bool    `json:"addTimestamp"`
	PageHeight            int     `json:"pageHeight,omitempty"`
	ViewportWidth         int     `json:"viewportWidth"`
	ViewportHeight        int     `json:"viewportHeight"`
	Theme                 string  `json:"theme"`
	RemoveBackground      bool    `json:"removeBackground"`
	HighlightLinks        bool    `json:"highlightLinks"`
	Delay                 float64 `json:"delay"` // seconds
	DisableAnimations     bool    `json:"disableAnimations"`
	Quality               int     `json:"quality"`
	ScaleFactor           float64 `json:"scaleFactor"`
	CaptureBeyondViewport bool    `json:"captureBeyondViewport"`
	Selector              string  `json:"selector,omitempty"`
	FallbackToFullPage    bool    `json:"fallbackToFullPage"`
}

// ScreenshotResult is the captured image, the page visited and the
// settings used, which feed the API's meta.
type ScreenshotResult struct {
	// Image is the encoded image.
	Image []byte
	PageVisit
	Settings ScreenshotSettings
	// SelectorFound says whether Settings.Selector matched (false when
	// the full page was captured instead).
	SelectorFound bool
	// BlockedAds counts the ad and tracker requests refused.
	BlockedAds int
}

// Screenshot captures the page at rawURL in Chromium. Everything the page
// loads goes through the SSRF policy; what it may not load is refused
// silently and counted in BlockedRequests. Errors: CodeInvalidURL,
// CodeInvalidParameters (an option out of range, or a selector that is
// not valid or matches nothing), CodeProxyCountryUnsupported,
// CodeBrowserUnavailable, CodeBusy (with RetryAfter), CodeTargetNotAllowed
// (the page or a redirect it follows is refused), CodeUnableToConnect,
// CodeScreenshotFailed.
func (c *Client) Screenshot(ctx context.Context, rawURL string, opts ScreenshotOptions) (_ *ScreenshotResult, err error) {
	ctx, end := c.startOp(ctx, "Screenshot", rawURL, pageOptions(opts.PageOptions).str("type", opts.Type).flag("full_page", opts.FullPage).
		count("viewport_width", opts.ViewportWidth).count("viewport_height", opts.ViewportHeight).str("selector", opts.Selector))
	defer end(&err)
	p, err := c.newPage(rawURL, opts.PageOptions, pageDefaults{blockAds: true, hideCookie: true, skipCaptcha: true})
	if err != nil {
		return nil, err
	}
	res := &ScreenshotResult{}
	shot, err := screenshotSettings(p, opts, &res.Settings)
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	res.PageVisit, err = c.visit(ctx, p, func(ctx context.Context, j *browser.Job) error {
		if opts.AddTimestamp {
			shot.Timestamp = c.cfg.Now()
		}
		s, err := j.Screenshot(ctx, shot)
		if err != nil {
			return err
		}
		res.Image, res.SelectorFound, res.BlockedAds = s.Data, s.SelectorFound, j.Stats().Blocked
		return nil
	})
	if err != nil {
		return nil, mapBrowserError(err, CodeScreenshotFailed)
	}
	return res, nil
}

// screenshotSettings checks opts, adds them to p's job and returns the
// capture's options; set receives the settings.
func screenshotSettings(p *page, opts ScreenshotOptions, set *ScreenshotSettings) (browser.ShotOptions, error) {
	var shot browser.ShotOptions
	for _, err := range []error{
		checkRange("viewportWidth", opts.ViewportWidth, MinViewportWidth, MaxViewportWidth),
		checkRange("viewportHeight", opts.ViewportHeight, MinViewportHeight, MaxViewportHeight),
		checkRange("pageHeight", opts.PageHeight, MinPageHeight, MaxPageHeight),
		checkRange("quality", opts.Quality, MinQuality, MaxQuality),
		checkRange("scaleFactor", opts.ScaleFactor, MinScaleFactor, MaxScaleFactor),
	} {
		if err != nil {
			return shot, err
		}
	}
	if opts.Delay < 0 || opts.Delay > MaxDelay {
		return shot, InvalidParameter("delay", "must be between 0 and 10 seconds")
	}
	typ, err := oneOf("type", opts.Type, string(browser.PNG), string(browser.PNG), string(browser.JPEG), string(browser.WebP))
	if err != nil {
		return shot, err
	}
	format := browser.Format(typ)
	theme, err := oneOf("theme", opts.Theme, "auto", "light", "dark", "auto")
	if err != nil {
		return shot, err
	}
	p.job.Width, p.job.Height, p.job.Scale = opts.ViewportWidth, opts.ViewportHeight, opts.ScaleFactor
	if theme != "auto" {
		p.job.Theme = browser.Theme(theme)
	}
	p.job.ReducedMotion = opts.DisableAnimations
	p.job.TransparentBackground = opts.RemoveBackground
	p.load.Delay = opts.Delay
	quality := cmp.Or(opts.Quality, browser.DefaultQuality)
	shot = browser.ShotOptions{
		Format:             format,
		Quality:            quality,
		FullPage:           opts.FullPage,
		PageHeight:         opts.PageHeight,
		Selector:           opts.Selector,
		FallbackToFullPage: opts.FallbackToFullPage,
		ResizeViewport:     opts.ResizeViewport,
		FreezeAnimations:   opts.DisableAnimations,
		HighlightLinks:     opts.HighlightLinks,
	}
	view := p.job.Device.Viewport()
	*set = ScreenshotSettings{
		PageSettings:          p.settings,
		Type:                  string(format),
		FullPage:              opts.FullPage,
		AddTimestamp:          opts.AddTimestamp,
		PageHeight:            opts.PageHeight,
		ViewportWidth:         cmp.Or(opts.ViewportWidth, view.Width),
		ViewportHeight:        cmp.Or(opts.ViewportHeight, view.Height),
		Theme:                 theme,
		RemoveBackground:      opts.RemoveBackground,
		HighlightLinks:        opts.HighlightLinks,
		Delay:                 opts.Delay.Seconds(),
		DisableAnimations:     opts.DisableAnimations,
		Quality:               quality,
		ScaleFactor:           cmp.Or(opts.ScaleFactor, view.Scale),
		CaptureBeyondViewport: !opts.ResizeViewport,
		Selector:              opts.Selector,
		FallbackToFullPage:    opts.FallbackToFullPage,
	}
	return shot, nil
}

// Screenshot calls Client.Screenshot on the default client.
func Screenshot(ctx context.Context, rawURL string, opts ScreenshotOptions) (*ScreenshotResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).Screenshot)
}
