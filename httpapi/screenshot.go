package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"time"

	"github.com/sitediag/sitediag"
)

type screenshotRequest struct {
	URL                   string  `json:"url"`
	Device                string  `json:"device"`
	ProxyCountry          string  `json:"proxyCountry"`
	Type                  string  `json:"type"`
	FullPage              bool    `json:"fullPage"`
	BlockAds              *bool   `json:"blockAds"`
	HideCookie            *bool   `json:"hideCookie"`
	SkipCaptcha           *bool   `json:"skipCaptcha"`
	AddTimestamp          bool    `json:"addTimestamp"`
	PageHeight            int     `json:"pageHeight"`
	ViewportWidth         int     `json:"viewportWidth"`
	ViewportHeight        int     `json:"viewportHeight"`
	Theme                 string  `json:"theme"`
	Delay                 float64 `json:"delay"`
	DisableAnimations     bool    `json:"disableAnimations"`
	Quality               int     `json:"quality"`
	ScaleFactor           float64 `json:"scaleFactor"`
	Selector              string  `json:"selector"`
	FallbackToFullPage    bool    `json:"fallbackToFullPage"`
	Inline                bool    `json:"inline"`
	RemoveBackground      bool    `json:"removeBackground"`
	HighlightLinks        bool    `json:"highlightLinks"`
	CaptureBeyondViewport *bool   `json:"captureBeyondViewport"`
}

type screenshotMeta struct {
	URL                   string     `json:"url"`
	RedirectedURL         string     `json:"redirectedURL"`
	Type                  string     `json:"type"`
	Device                string     `json:"device"`
	FullPage              bool       `json:"fullPage"`
	BlockAds              bool       `json:"blockAds"`
	HideCookie            bool       `json:"hideCookie"`
	SkipCaptcha           bool       `json:"skipCaptcha"`
	AddTimestamp          bool       `json:"addTimestamp"`
	ProxyCountry          string     `json:"proxyCountry,omitempty"`
	PageHeight            int        `json:"pageHeight,omitempty"`
	ViewportWidth         int        `json:"viewportWidth"`
	ViewportHeight        int        `json:"viewportHeight"`
	Theme                 string     `json:"theme"`
	RemoveBackground      bool       `json:"removeBackground"`
	HighlightLinks        bool       `json:"highlightLinks"`
	Delay                 float64    `json:"delay"`
	DisableAnimations     bool       `json:"disableAnimations"`
	Quality               int        `json:"quality"`
	ScaleFactor           float64    `json:"scaleFactor"`
	CaptureBeyondViewport bool       `json:"captureBeyondViewport"`
	Selector              string     `json:"selector,omitempty"`
	SelectorFound         *bool      `json:"selectorFound,omitempty"`
	FallbackToFullPage    bool       `json:"fallbackToFullPage"`
	Inline                bool       `json:"inline"`
	BlockedRequests       int        `json:"blockedRequests"`
	BlockedAds            int        `json:"blockedAds"`
	Test                  testRecord `json:"test"`
}

type screenshotInline struct {
	Base64  string `json:"base64"`
	DataURI string `json:"dataUri"`
}

func (h *Handler) screenshot(ctx context.Context, req *screenshotRequest, test testRecord) (*response, error) {
	res, err := h.client.Screenshot(ctx, req.URL, sitediag.ScreenshotOptions{
		Device:             req.Device,
		ProxyCountry:       req.ProxyCountry,
		Type:               req.Type,
		FullPage:           req.FullPage,
		AllowAds:           req.BlockAds != nil && !*req.BlockAds,
		ShowCookieBanners:  req.HideCookie != nil && !*req.HideCookie,
		NoChallengeWait:    req.SkipCaptcha != nil && !*req.SkipCaptcha,
		AddTimestamp:       req.AddTimestamp,
		ViewportWidth:      req.ViewportWidth,
		ViewportHeight:     req.ViewportHeight,
		PageHeight:         req.PageHeight,
		Theme:              req.Theme,
		Delay:              time.Duration(req.Delay * float64(time.Second)),
		DisableAnimations:  req.DisableAnimations,
		Quality:            req.Quality,
		ScaleFactor:        req.ScaleFactor,
		Selector:           req.Selector,
		FallbackToFullPage: req.FallbackToFullPage,
		RemoveBackground:   req.RemoveBackground,
		HighlightLinks:     req.HighlightLinks,
		ResizeViewport:     req.CaptureBeyondViewport != nil && !*req.CaptureBeyondViewport,
	})
	if err != nil {
		return nil, err
	}
	link, err := h.storeArtifact(ctx, res.Type, bytes.NewReader(res.Image))
	if err != nil {
		return nil, err
	}
	meta := screenshotMeta{
		URL: res.URL, RedirectedURL: res.RedirectedURL, Type: res.Type, Device: res.Device,
		FullPage: res.FullPage, BlockAds: res.BlockAds, HideCookie: res.HideCookie, SkipCaptcha: res.SkipCaptcha,
		AddTimestamp: res.AddTimestamp, ProxyCountry: res.ProxyCountry, PageHeight: res.PageHeight,
		ViewportWidth: res.ViewportWidth, ViewportHeight: res.ViewportHeight, Theme: res.Theme,
		RemoveBackground: res.RemoveBackground, HighlightLinks: res.HighlightLinks, Delay: res.Delay.Seconds(),
		DisableAnimations: res.DisableAnimations, Quality: res.Quality, ScaleFactor: res.ScaleFactor,
		CaptureBeyondViewport: res.CaptureBeyondViewport, Selector: res.Selector,
		FallbackToFullPage: res.FallbackToFullPage, Inline: req.Inline,
		BlockedRequests: res.BlockedRequests, BlockedAds: res.BlockedAds, Test: test,
	}
	if res.Selector != "" {
		meta.SelectorFound = &res.SelectorFound
	}
	resp := &response{Meta: meta, Data: link}
	if req.Inline {
		b64 := base64.StdEncoding.EncodeToString(res.Image)
		resp.Inline = screenshotInline{Base64: b64, DataURI: "data:image/" + res.Type + ";base64," + b64}
	}
	return resp, nil
}
