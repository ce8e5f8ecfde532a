package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"time"

	"github.com/sitediag/sitediag"
)

type screenshotRequest struct {
	URL string `json:"url"`
	sitediag.PageOptions
	Type           string `json:"type" api:"enum=png|jpeg|webp,default=png"`
	FullPage       bool   `json:"fullPage"`
	AddTimestamp   bool   `json:"addTimestamp"`
	PageHeight     int    `json:"pageHeight" api:"min=100,max=5000"`
	ViewportWidth  int    `json:"viewportWidth" api:"min=320,max=3840"`
	ViewportHeight int    `json:"viewportHeight" api:"min=240,max=2160"`
	Theme          string `json:"theme" api:"enum=light|dark|auto,default=auto"`
	// Delay is how long to wait after the page loads, in seconds.
	Delay                 float64 `json:"delay" api:"min=0,max=10"`
	DisableAnimations     bool    `json:"disableAnimations"`
	Quality               int     `json:"quality" api:"min=10,max=100,default=90"`
	ScaleFactor           float64 `json:"scaleFactor" api:"min=0.1,max=3"`
	Selector              string  `json:"selector"`
	FallbackToFullPage    bool    `json:"fallbackToFullPage"`
	Inline                bool    `json:"inline"`
	RemoveBackground      bool    `json:"removeBackground"`
	HighlightLinks        bool    `json:"highlightLinks"`
	CaptureBeyondViewport *bool   `json:"captureBeyondViewport"`
}

type screenshotMeta struct {
	sitediag.PageVisit
	sitediag.ScreenshotSettings
	SelectorFound *bool      `json:"selectorFound,omitempty"`
	Inline        bool       `json:"inline"`
	BlockedAds    int        `json:"blockedAds"`
	Test          testRecord `json:"test"`
}

type screenshotInline struct {
	Base64  string `json:"base64"`
	DataURI string `json:"dataUri"`
}

func (h *Handler) screenshot(ctx context.Context, req *screenshotRequest, test testRecord) (*response, error) {
	res, err := h.client.Screenshot(ctx, req.URL, sitediag.ScreenshotOptions{
		PageOptions:        req.PageOptions,
		Type:               req.Type,
		FullPage:           req.FullPage,
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
	link, err := h.storeArtifact(ctx, res.Settings.Type, bytes.NewReader(res.Image))
	if err != nil {
		return nil, err
	}
	meta := screenshotMeta{
		PageVisit: res.PageVisit, ScreenshotSettings: res.Settings,
		Inline: req.Inline, BlockedAds: res.BlockedAds, Test: test,
	}
	if res.Settings.Selector != "" {
		meta.SelectorFound = &res.SelectorFound
	}
	resp := &response{Message: pageMessage(res.PageVisit), Meta: meta, Data: link}
	if req.Inline {
		b64 := base64.StdEncoding.EncodeToString(res.Image)
		resp.Inline = screenshotInline{Base64: b64, DataURI: "data:image/" + res.Settings.Type + ";base64," + b64}
	}
	return resp, nil
}
