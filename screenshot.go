package sitediag

import (
	"cmp"
	"context"

	"github.com/sitediag/sitediag/browser"
)

// ScreenshotOptions are the options of Screenshot and the API's body of
// /screenshot. The zero value is a PNG of a 1366×768 desktop viewport
// with ads blocked, cookie banners hidden and a wait for bot challenges.
type ScreenshotOptions struct {
	PageOptions `api:"blockAds=true,hideCookie=true,skipCaptcha=true"`
	// ShotOptions are the capture's own members, declared (name, range,
	// default, description) in the browser package.
	browser.ShotOptions
	// AddTimestamp shows the capture time (UTC) in a corner.
	AddTimestamp Toggle `json:"addTimestamp" api:"default=false"`
	// ViewportWidth is the viewport's width in CSS pixels. Zero means the
	// device's (1366 desktop, 390 mobile).
	ViewportWidth int `json:"viewportWidth" api:"min=320,max=3840"`
	// ViewportHeight is the viewport's height in CSS pixels. Zero means
	// the device's (768 desktop, 844 mobile).
	ViewportHeight int `json:"viewportHeight" api:"min=240,max=2160"`
	// Theme is light, dark or auto (the page's own).
	Theme string `json:"theme" api:"enum=light|dark|auto,default=auto"`
	// Delay, in seconds, is waited after the page has loaded.
	Delay Seconds `json:"delay" api:"min=0,max=10"`
	// DisableAnimations finishes and turns off CSS animations and
	// transitions, and asks for reduced motion.
	DisableAnimations Toggle `json:"disableAnimations" api:"default=false"`
	// ScaleFactor is the device scale factor. Zero means the device's
	// (1 desktop, 3 mobile).
	ScaleFactor float64 `json:"scaleFactor" api:"min=0.1,max=3"`
	// RemoveBackground makes the default page background transparent
	// (png and webp keep the alpha channel).
	RemoveBackground Toggle `json:"removeBackground" api:"default=false"`
	// Inline adds the image to the API's answer as base64 (its inline
	// member) besides its URL. The library always returns the image.
	Inline Toggle `json:"inline" api:"default=false"`
}

// ScreenshotResult is the captured image, the page visited and the
// settings used.
type ScreenshotResult struct {
	// Image is the encoded image.
	Image     []byte `json:"-"`
	PageVisit `json:"-"`
	// Settings are the options the capture ran with, defaults filled
	// in.
	Settings ScreenshotOptions `json:"-"`
	// SelectorFound says whether Settings.Selector matched (false when
	// the full page was captured instead); nil without a selector.
	SelectorFound *bool `json:"selectorFound,omitempty"`
	// BlockedAds counts the ad and tracker requests refused.
	BlockedAds int `json:"blockedAds"`
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
	return runPage(ctx, c, rawURL, &opts, &opts.PageOptions, pageOp{name: "Screenshot", failed: CodeScreenshotFailed}, func(ctx context.Context, p *page) (*ScreenshotResult, error) {
		screenshotJob(p, &opts)
		res := &ScreenshotResult{Settings: opts}
		shot := opts.ShotOptions
		var err error
		res.PageVisit, err = c.visit(ctx, p, func(ctx context.Context, j *browser.Job) error {
			if opts.AddTimestamp.Bool() {
				shot.Timestamp = c.cfg.Now()
			}
			s, err := j.Screenshot(ctx, shot)
			if err != nil {
				return err
			}
			res.Image, res.BlockedAds = s.Data, j.Stats().Blocked
			if opts.Selector != "" {
				res.SelectorFound = &s.SelectorFound
			}
			return nil
		})
		return res, err
	})
}

// screenshotJob adds the resolved opts to p's job; it fills in opts'
// device-dependent defaults.
func screenshotJob(p *page, opts *ScreenshotOptions) {
	view := p.job.Device.Viewport()
	opts.ViewportWidth = cmp.Or(opts.ViewportWidth, view.Width)
	opts.ViewportHeight = cmp.Or(opts.ViewportHeight, view.Height)
	opts.ScaleFactor = cmp.Or(opts.ScaleFactor, view.Scale)
	p.job.Width, p.job.Height, p.job.Scale = opts.ViewportWidth, opts.ViewportHeight, opts.ScaleFactor
	if opts.Theme != "auto" {
		p.job.Theme = browser.Theme(opts.Theme)
	}
	p.job.DisableAnimations = opts.DisableAnimations.Bool()
	p.job.RemoveBackground = opts.RemoveBackground.Bool()
	p.load.Delay = opts.Delay.Duration()
}

// Screenshot calls Client.Screenshot on the default client.
func Screenshot(ctx context.Context, rawURL string, opts ScreenshotOptions) (*ScreenshotResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).Screenshot)
}
