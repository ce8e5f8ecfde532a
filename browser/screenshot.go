package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"github.com/sitediag/sitediag/internal/tracing"
	"github.com/sitediag/sitediag/option"
)

// ImageType is a screenshot's image format.
type ImageType string

// The image types; the empty ImageType is PNG.
const (
	PNG  ImageType = "png"
	JPEG ImageType = "jpeg"
	WebP ImageType = "webp"
)

// Limits of a capture, in device pixels (CSS pixels times the scale).
// Taller captures are cut at the bottom.
const (
	MaxCaptureSide   = 16384
	MaxCapturePixels = 40_000_000
)

// DefaultQuality is the JPEG and WebP quality when none is given.
const DefaultQuality = 90

// selectorWait bounds the wait for a selector's element to appear.
const (
	selectorWait = 5 * time.Second
	selectorPoll = 200 * time.Millisecond
)

// TimestampLayout is how a timestamp overlay or footer shows the time
// (always UTC).
const TimestampLayout = "2006-01-02 15:04:05 UTC"

// ErrNoElement means a selector matched no visible element.
var ErrNoElement = errors.New("browser: the selector matched no visible element")

// SelectorError means a selector is not valid CSS.
type SelectorError struct {
	Selector string
}

func (e *SelectorError) Error() string {
	return fmt.Sprintf("browser: %q is not a valid CSS selector", e.Selector)
}

// ShotOptions shape a screenshot; they are also the capture's members
// of the API's /screenshot body (sitediag.ScreenshotOptions embeds them),
// so each is declared once, with its JSON name, range and default. The
// zero value is a PNG of the viewport, a tall area captured beyond the
// viewport.
type ShotOptions struct {
	// Type is the image type.
	Type ImageType `json:"type" api:"enum=png|jpeg|webp,default=png"`
	// FullPage captures the whole page (up to 16,384 device pixels tall,
	// MaxCaptureSide) instead of the viewport.
	FullPage option.Toggle `json:"fullPage" api:"default=false"`
	// PageHeight is the height captured from the top of the page in CSS
	// pixels, beyond the viewport when taller; with fullPage, the most
	// captured. Zero means the viewport's (or the full page's).
	PageHeight int `json:"pageHeight" api:"min=100,max=5000"`
	// Quality is the JPEG or WebP quality; PNG ignores it. Zero means
	// 90 (DefaultQuality).
	Quality int `json:"quality" api:"min=10,max=100,default=90"`
	// Selector captures only the first visible element it matches,
	// waiting up to 5 s for it to appear.
	Selector string `json:"selector"`
	// FallbackToFullPage captures the full page when selector matches
	// nothing, instead of failing (the API answers INVALID_PARAMETERS,
	// Job.Screenshot returns ErrNoElement).
	FallbackToFullPage option.Toggle `json:"fallbackToFullPage" api:"default=false"`
	// HighlightLinks outlines every link.
	HighlightLinks option.Toggle `json:"highlightLinks" api:"default=false"`
	// CaptureBeyondViewport captures an area taller than the viewport
	// beyond it; off, the viewport is resized to the area for the
	// capture (the page lays out again).
	CaptureBeyondViewport option.Toggle `json:"captureBeyondViewport" api:"default=true"`
	// Timestamp, if set, is shown in a corner of the capture
	// (TimestampLayout, UTC). The API sets it with addTimestamp.
	Timestamp time.Time `json:"-"`
}

// Shot is a captured image.
type Shot struct {
	// Data is the encoded image.
	Data []byte
	// SelectorFound says whether ShotOptions.Selector matched (false when
	// the full page was captured instead).
	SelectorFound bool
	// Cut says whether the capture was cut at MaxCaptureSide or
	// MaxCapturePixels.
	Cut bool
}

// area is a capture area in CSS pixels, in document coordinates.
type area struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Screenshot captures the page as it is now. Captures in one browser run
// one at a time (a capture waits for the one under way, within ctx).
// The span in ctx gets the
// events "capture ready" (styles, element, size and stamp done) and
// "captured" (Chromium's capture and encoding, decoded). Errors: ErrNoElement, a
// *SelectorError, ErrCrashed, or a *StepError.
func (j *Job) Screenshot(ctx context.Context, o ShotOptions) (*Shot, error) {
	page := j.page.Context(ctx)
	if j.opts.DisableAnimations || o.HighlightLinks.Bool() {
		if _, err := page.Eval(decorateJS, j.opts.DisableAnimations, o.HighlightLinks.Bool()); err != nil {
			return nil, j.fail(ctx, "styling the page", err)
		}
	}
	shot := &Shot{}
	var a *area
	full := o.FullPage.Bool()
	if o.Selector != "" {
		el, err := j.element(ctx, o.Selector)
		switch {
		case err == nil:
			a, shot.SelectorFound = el, true
		case errors.Is(err, ErrNoElement) && o.FallbackToFullPage.Bool():
			full = true
		default:
			return nil, err
		}
	}
	if a == nil && (full || o.PageHeight > 0) {
		height := float64(o.PageHeight)
		if full {
			metrics, err := proto.PageGetLayoutMetrics{}.Call(page)
			if err != nil {
				return nil, j.fail(ctx, "measuring the page", err)
			}
			height = float64(j.view.Height)
			if metrics.CSSContentSize != nil {
				height = max(height, math.Ceil(metrics.CSSContentSize.Height))
			}
			if o.PageHeight > 0 {
				height = min(height, float64(o.PageHeight))
			}
		}
		a = &area{Width: float64(j.view.Width), Height: height}
	}
	if a != nil {
		shot.Cut = j.limit(a)
	}
	if !o.Timestamp.IsZero() {
		if _, err := page.Eval(stampJS, o.Timestamp.UTC().Format(TimestampLayout), a); err != nil {
			return nil, j.fail(ctx, "adding the timestamp", err)
		}
	}
	// PNG is lossless at any zlib level: Chromium's fast one
	// (optimizeForSpeed) costs bytes, not pixels, and most of the
	// capture's time otherwise.
	req := proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng, FromSurface: true, OptimizeForSpeed: true}
	switch o.Type {
	case JPEG, WebP:
		req.Format = proto.PageCaptureScreenshotFormat(o.Type)
		req.OptimizeForSpeed = false // lossy: the quality asked for, as encoded normally
		q := o.Quality
		if q <= 0 {
			q = DefaultQuality
		}
		req.Quality = intPtr(q)
	}
	switch {
	case a != nil && o.CaptureBeyondViewport == option.Off && a.X == 0 && a.Y == 0:
		if err := j.setViewport(ctx, int(a.Height)); err != nil {
			return nil, j.fail(ctx, "resizing the viewport", err)
		}
		defer j.setViewport(ctx, j.view.Height)
	case a != nil:
		req.Clip = &proto.PageViewport{X: a.X, Y: a.Y, Width: a.Width, Height: a.Height, Scale: 1}
		req.CaptureBeyondViewport = true
	}
	// One capture at a time per browser: each is a frame of the area
	// drawn and read back in the GPU process, whose memory concurrent
	// captures multiply, while they would share the CPU anyway.
	select {
	case j.inst.capturing <- struct{}{}:
	case <-ctx.Done():
		return nil, j.fail(ctx, "waiting to capture", ctx.Err())
	}
	tracing.Event(ctx, "capture ready")
	res, err := req.Call(page)
	<-j.inst.capturing
	if err != nil {
		return nil, j.fail(ctx, "capturing", err)
	}
	tracing.Event(ctx, "captured")
	shot.Data = res.Data
	return shot, nil
}

// limit cuts a to the capture limits and reports whether it did.
func (j *Job) limit(a *area) bool {
	s := j.view.Scale
	w := min(a.Width, math.Floor(MaxCaptureSide/s))
	h := min(a.Height, math.Floor(MaxCaptureSide/s), math.Floor(MaxCapturePixels/(w*s*s)))
	cut := w < a.Width || h < a.Height
	a.Width, a.Height = w, h
	return cut
}

// element finds the area of selector's first visible element, waiting a
// little for it to appear.
func (j *Job) element(ctx context.Context, selector string) (*area, error) {
	page := j.page.Context(ctx)
	deadline := time.Now().Add(selectorWait)
	for {
		res, err := page.Eval(elementJS, selector)
		if err != nil {
			return nil, j.fail(ctx, "finding the element", err)
		}
		var found struct {
			Invalid bool `json:"invalid"`
			area
		}
		raw := res.Value.JSON("", "")
		if raw == "null" {
			if time.Now().After(deadline) {
				return nil, ErrNoElement
			}
			select {
			case <-time.After(selectorPoll):
				continue
			case <-ctx.Done():
				return nil, j.fail(ctx, "finding the element", ctx.Err())
			}
		}
		if err := json.Unmarshal([]byte(raw), &found); err != nil {
			return nil, j.fail(ctx, "finding the element", err)
		}
		if found.Invalid {
			return nil, &SelectorError{Selector: selector}
		}
		a := found.area
		// Whole device pixels: the element's box, rounded outwards.
		x, y := math.Floor(a.X), math.Floor(a.Y)
		a.Width, a.Height = math.Ceil(a.X+a.Width)-x, math.Ceil(a.Y+a.Height)-y
		a.X, a.Y = x, y
		return &a, nil
	}
}

// elementJS returns the document area of the first visible element
// matching the selector, null when there is none, {invalid: true} when
// the selector does not parse.
const elementJS = `(sel) => {
  let el;
  try { el = document.querySelector(sel); } catch (e) { return { invalid: true }; }
  if (!el) return null;
  const r = el.getBoundingClientRect();
  if (r.width < 1 || r.height < 1) return null;
  return { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height };
}`

// decorateJS freezes animations and highlights links, then waits for two
// frames (at most 300 ms) so the change is painted.
const decorateJS = `(freeze, highlight) => {
  const add = (css) => {
    const s = document.createElement('style');
    s.setAttribute('data-sitediag', '');
    s.textContent = css;
    document.documentElement.appendChild(s);
  };
  if (freeze) {
    add('*, *::before, *::after { transition: none !important; animation-duration: 0s !important; ' +
        'animation-delay: 0s !important; animation-iteration-count: 1 !important; ' +
        'caret-color: transparent !important; scroll-behavior: auto !important; }');
    for (const a of document.getAnimations()) {
      try { a.finish(); } catch (e) { a.cancel(); }
    }
  }
  if (highlight) add('a[href] { outline: 2px solid #e8175d !important; outline-offset: 1px !important; }');
  return new Promise((done) => {
    setTimeout(done, 300);
    requestAnimationFrame(() => requestAnimationFrame(done));
  });
}`

// stampJS shows the time in the top-right corner of the capture area (of
// the viewport when there is none).
const stampJS = `(text, a) => {
  const d = document.createElement('div');
  d.setAttribute('data-sitediag', 'timestamp');
  d.textContent = text;
  const top = a ? a.y : window.scrollY;
  const right = a ? a.x + a.width : window.scrollX + document.documentElement.clientWidth;
  d.style.cssText = 'position:absolute;z-index:2147483647;margin:0;padding:4px 8px;border-radius:4px;' +
    'background:rgba(0,0,0,.75);color:#fff;font:600 14px/1.4 monospace;pointer-events:none;' +
    'white-space:nowrap;transform:translateX(-100%);top:' + (top + 8) + 'px;left:' + (right - 8) + 'px';
  document.documentElement.appendChild(d);
  return true;
}`
