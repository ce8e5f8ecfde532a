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
	Type                  string  `json:"type" openapi:"enum=png|jpeg|webp,default=png"`
	FullPage              bool    `json:"fullPage"`
	AddTimestamp          bool    `json:"addTimestamp"`
	PageHeight            int     `json:"pageHeight" openapi:"minimum=100,maximum=5000,zero"`
	ViewportWidth         int     `json:"viewportWidth" openapi:"minimum=320,maximum=3840,zero"`
	ViewportHeight        int     `json:"viewportHeight" openapi:"minimum=240,maximum=2160,zero"`
	Theme                 string  `json:"theme" openapi:"enum=light|dark|auto,default=auto"`
	Delay                 float64 `json:"delay" openapi:"minimum=0,maximum=10,description=seconds to wait after the page loads"`
	DisableAnimations     bool    `json:"disableAnimations"`
	Quality               int     `json:"quality" openapi:"minimum=10,maximum=100,zero,default=90"`
	ScaleFactor           float64 `json:"scaleFactor" openapi:"minimum=0.1,maximum=3,zero"`
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
