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
	// Device is "desktop" (1366×768) or "mobile" (390×844 at 3×, touch,
	// mobile user agent). Empty means desktop.
	Device string
	// ProxyCountry loads the page through the proxy configured for that
	// country. Empty means direct.
	ProxyCountry string
	// Type is png, jpeg or webp. Empty means png.
	Type string
	// FullPage captures the whole page (up to browser.MaxCaptureSide
	// device pixels tall) instead of the viewport.
	FullPage bool
	// AllowAds loads ad and tracker hosts; by default they are refused
	// (browser.IsAdHost).
	AllowAds bool
	// ShowCookieBanners leaves consent banners visible; by default the
	// common platforms' are hidden and scrolling restored.
	ShowCookieBanners bool
	// NoChallengeWait skips the wait for a bot challenge page to clear by
	// itself (skipCaptcha false).
	NoChallengeWait bool
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

// ScreenshotResult is the captured image and the settings used, which
// feed the API's meta.
type ScreenshotResult struct {
	// Image is the encoded image.
	Image []byte
	// URL is the target as requested (normalised); RedirectedURL the
	// page's final URL.
	URL, RedirectedURL string
	// The settings used, defaults filled in.
	Type, Device, Theme, ProxyCountry                  string
	FullPage, BlockAds, HideCookie, SkipCaptcha        bool
	AddTimestamp, DisableAnimations                    bool
	RemoveBackground, HighlightLinks                   bool
	CaptureBeyondViewport, FallbackToFullPage          bool
	ViewportWidth, ViewportHeight, PageHeight, Quality int
	ScaleFactor                                        float64
	Delay                                              time.Duration
	Selector                                           string
	// SelectorFound says whether Selector matched (false when the full
	// page was captured instead).
	SelectorFound bool
	// BlockedRequests counts what the page tried to load that the SSRF
	// policy refused; BlockedAds the ad and tracker requests refused.
	BlockedRequests, BlockedAds int
}

// Screenshot captures the page at rawURL in Chromium. Everything the page
// loads goes through the SSRF policy; what it may not load is refused
// silently and counted in BlockedRequests. Errors: CodeInvalidURL,
// CodeInvalidParameters (an option out of range, or a selector that is
// not valid or matches nothing), CodeProxyCountryUnsupported,
// CodeBrowserUnavailable, CodeBusy (with RetryAfter), CodeTargetNotAllowed
// (the page or a redirect it follows is refused), CodeUnableToConnect,
// CodeScreenshotFailed.
func (c *Client) Screenshot(ctx context.Context, rawURL string, opts ScreenshotOptions) (*ScreenshotResult, error) {
	t, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	res, po, shot, err := c.screenshotSettings(opts)
	if err != nil {
		return nil, err
	}
	res.URL = t.URL.String()
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	err = c.browser.Do(ctx, po.job, func(ctx context.Context, j *browser.Job) error {
		if err := c.checkPage(ctx, t); err != nil {
			return err
		}
		v, err := j.Load(ctx, res.URL, po.load)
		if err != nil {
			return err
		}
		if opts.AddTimestamp {
			shot.Timestamp = c.cfg.Now()
		}
		s, err := j.Screenshot(ctx, shot)
		if err != nil {
			return err
		}
		stats := j.Stats()
		res.Image, res.SelectorFound, res.RedirectedURL = s.Data, s.SelectorFound, v.URL
		res.BlockedRequests, res.BlockedAds = stats.Refused, stats.Blocked
		return nil
	})
	if err != nil {
		return nil, mapBrowserError(err, CodeScreenshotFailed)
	}
	return res, nil
}

// screenshotSettings checks opts and turns them into the browser's
// options and the result's echo of them.
func (c *Client) screenshotSettings(opts ScreenshotOptions) (*ScreenshotResult, pageOptions, browser.ShotOptions, error) {
	var shot browser.ShotOptions
	for _, err := range []error{
		checkRange("viewportWidth", opts.ViewportWidth, MinViewportWidth, MaxViewportWidth),
		checkRange("viewportHeight", opts.ViewportHeight, MinViewportHeight, MaxViewportHeight),
		checkRange("pageHeight", opts.PageHeight, MinPageHeight, MaxPageHeight),
		checkRange("quality", opts.Quality, MinQuality, MaxQuality),
		checkRange("scaleFactor", opts.ScaleFactor, MinScaleFactor, MaxScaleFactor),
	} {
		if err != nil {
			return nil, pageOptions{}, shot, err
		}
	}
	if opts.Delay < 0 || opts.Delay > MaxDelay {
		return nil, pageOptions{}, shot, InvalidParameter("delay", "must be between 0 and 10 seconds")
	}
	format := browser.Format(opts.Type)
	switch format {
	case "":
		format = browser.PNG
	case browser.PNG, browser.JPEG, browser.WebP:
	default:
		return nil, pageOptions{}, shot, InvalidParameter("type", "must be png, jpeg or webp")
	}
	theme := opts.Theme
	switch theme {
	case "":
		theme = "auto"
	case "auto", "light", "dark":
	default:
		return nil, pageOptions{}, shot, InvalidParameter("theme", "must be light, dark or auto")
	}
	po, err := c.newPageOptions(opts.Device, opts.ProxyCountry)
	if err != nil {
		return nil, pageOptions{}, shot, err
	}
	po.job.Width, po.job.Height, po.job.Scale = opts.ViewportWidth, opts.ViewportHeight, opts.ScaleFactor
	if theme != "auto" {
		po.job.Theme = browser.Theme(theme)
	}
	po.job.ReducedMotion = opts.DisableAnimations
	po.job.TransparentBackground = opts.RemoveBackground
	po.job.BlockAds = !opts.AllowAds
	po.load = browser.LoadOptions{
		HideCookieBanners: !opts.ShowCookieBanners,
		WaitForChallenge:  !opts.NoChallengeWait,
		Delay:             opts.Delay,
	}
	quality := opts.Quality
	if quality == 0 {
		quality = browser.DefaultQuality
	}
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
	view := po.job.Device.Viewport()
	res := &ScreenshotResult{
		Type:                  string(format),
		Device:                deviceName(po.job.Device),
		Theme:                 theme,
		ProxyCountry:          opts.ProxyCountry,
		FullPage:              opts.FullPage,
		BlockAds:              po.job.BlockAds,
		HideCookie:            po.load.HideCookieBanners,
		SkipCaptcha:           po.load.WaitForChallenge,
		AddTimestamp:          opts.AddTimestamp,
		DisableAnimations:     opts.DisableAnimations,
		RemoveBackground:      opts.RemoveBackground,
		HighlightLinks:        opts.HighlightLinks,
		CaptureBeyondViewport: !opts.ResizeViewport,
		FallbackToFullPage:    opts.FallbackToFullPage,
		ViewportWidth:         cmp.Or(opts.ViewportWidth, view.Width),
		ViewportHeight:        cmp.Or(opts.ViewportHeight, view.Height),
		PageHeight:            opts.PageHeight,
		Quality:               quality,
		ScaleFactor:           cmp.Or(opts.ScaleFactor, view.Scale),
		Delay:                 opts.Delay,
		Selector:              opts.Selector,
	}
	return res, po, shot, nil
}

// Screenshot calls Client.Screenshot on the default client.
func Screenshot(ctx context.Context, rawURL string, opts ScreenshotOptions) (*ScreenshotResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).Screenshot)
}
