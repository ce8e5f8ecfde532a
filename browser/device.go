package browser

import (
	"context"
	"runtime"
	"strings"

	"github.com/go-rod/rod/lib/proto"
)

// Device names an emulated device.
type Device string

// The devices: a 1366×768 desktop, and a current phone (390×844 CSS
// pixels at 3×, touch, Chrome-on-Android user agent; the engine really is
// Chromium, so the page gets what a Chromium phone gets).
const (
	Desktop Device = "desktop"
	Mobile  Device = "mobile"
)

// Theme is an emulated prefers-color-scheme.
type Theme string

// The themes; the empty Theme leaves the page's own choice.
const (
	Light Theme = "light"
	Dark  Theme = "dark"
)

// Viewport is a viewport in CSS pixels and its device scale factor.
type Viewport struct {
	Width, Height int
	Scale         float64
}

// Viewport returns the device's default viewport.
func (d Device) Viewport() Viewport { return d.profile().Viewport }

// profile is what a device looks like.
type profile struct {
	Viewport
	mobile bool
}

func (d Device) profile() profile {
	if d == Mobile {
		return profile{Viewport: Viewport{Width: 390, Height: 844, Scale: 3}, mobile: true}
	}
	return profile{Viewport: Viewport{Width: 1366, Height: 768, Scale: 1}}
}

// Valid reports whether d is a known device (the empty Device is
// Desktop).
func (d Device) Valid() bool { return d == "" || d == Desktop || d == Mobile }

// emulated is the device a page is emulating: its viewport, and whether
// it is a phone (touch, and the phone's user agent).
type emulated struct {
	view   Viewport
	mobile bool
}

// emulate applies the job's device, viewport, theme and background. A
// page already emulating the device (a spare, see instance.prepareSpare)
// keeps it as it is.
func (j *Job) emulate(ctx context.Context, v version) error {
	page := j.page.Context(ctx)
	prof := j.opts.Device.profile()
	j.view = prof.Viewport
	if j.opts.Width > 0 {
		j.view.Width = j.opts.Width
	}
	if j.opts.Height > 0 {
		j.view.Height = j.opts.Height
	}
	if j.opts.Scale > 0 {
		j.view.Scale = j.opts.Scale
	}
	if dev := (emulated{j.view, prof.mobile}); j.device != dev {
		if err := j.setViewport(ctx, j.view.Height); err != nil {
			return err
		}
		if prof.mobile {
			if err := (proto.EmulationSetTouchEmulationEnabled{Enabled: true, MaxTouchPoints: intPtr(5)}).Call(page); err != nil {
				return err
			}
		}
		if err := userAgent(prof.mobile, v).Call(page); err != nil {
			return err
		}
		j.device = dev
	}
	var features []*proto.EmulationMediaFeature
	if j.opts.Theme != "" {
		features = append(features, &proto.EmulationMediaFeature{Name: "prefers-color-scheme", Value: string(j.opts.Theme)})
	}
	if j.opts.DisableAnimations {
		features = append(features, &proto.EmulationMediaFeature{Name: "prefers-reduced-motion", Value: "reduce"})
	}
	if len(features) > 0 {
		if err := (proto.EmulationSetEmulatedMedia{Features: features}).Call(page); err != nil {
			return err
		}
	}
	if j.opts.RemoveBackground {
		transparent := &proto.DOMRGBA{R: 0, G: 0, B: 0, A: floatPtr(0)}
		if err := (proto.EmulationSetDefaultBackgroundColorOverride{Color: transparent}).Call(page); err != nil {
			return err
		}
	}
	return nil
}

// setViewport sets the device metrics with the given viewport height.
func (j *Job) setViewport(ctx context.Context, height int) error {
	prof := j.opts.Device.profile()
	metrics := proto.EmulationSetDeviceMetricsOverride{
		Width:             j.view.Width,
		Height:            height,
		DeviceScaleFactor: j.view.Scale,
		Mobile:            prof.mobile,
		ScreenWidth:       intPtr(j.view.Width),
		ScreenHeight:      intPtr(max(height, j.view.Height)),
	}
	if prof.mobile {
		metrics.ScreenOrientation = &proto.EmulationScreenOrientation{Type: proto.EmulationScreenOrientationTypePortraitPrimary}
	}
	return metrics.Call(j.page.Context(ctx))
}

// userAgent is the override for the device: the browser's own user agent
// without "Headless", or the Android phone's; the client hints agree.
func userAgent(mobile bool, v version) proto.EmulationSetUserAgentOverride {
	major := v.major
	if major == "" {
		major = "0"
	}
	ua := strings.Replace(v.userAgent, "HeadlessChrome/", "Chrome/", 1)
	platform, navPlatform, arch := "Linux", "Linux x86_64", "x86"
	if runtime.GOARCH == "arm64" {
		navPlatform, arch = "Linux aarch64", "arm"
	}
	if mobile {
		ua = "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/" +
			major + ".0.0.0 Mobile Safari/537.36"
		platform, navPlatform, arch = "Android", "Linux armv81", ""
	}
	brands := []*proto.EmulationUserAgentBrandVersion{
		{Brand: "Chromium", Version: major},
		{Brand: "Not.A/Brand", Version: "99"},
	}
	return proto.EmulationSetUserAgentOverride{
		UserAgent:      ua,
		AcceptLanguage: "en-US,en;q=0.9",
		Platform:       navPlatform,
		UserAgentMetadata: &proto.EmulationUserAgentMetadata{
			Brands:          brands,
			FullVersionList: []*proto.EmulationUserAgentBrandVersion{{Brand: "Chromium", Version: v.full}, brands[1]},
			Platform:        platform,
			PlatformVersion: "",
			Architecture:    arch,
			Model:           "",
			Mobile:          mobile,
		},
	}
}

func intPtr(i int) *int           { return &i }
func floatPtr(f float64) *float64 { return &f }
