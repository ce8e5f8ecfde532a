package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

type url2PDFRequest struct {
	URL string `json:"url"`
	sitediag.PageOptions
	Format      string `json:"format" api:"enum=letter|legal|a0|a1|a2|a3|a4|a5|a6,default=a4"`
	Orientation string `json:"orientation" api:"enum=portrait|landscape,default=portrait"`
	Margin      *struct {
		// Top is the top margin in millimetres.
		Top *float64 `json:"top" api:"min=0,default=10"`
		// Bottom is the bottom margin in millimetres.
		Bottom *float64 `json:"bottom" api:"min=0,default=10"`
		// Right is the right margin in millimetres.
		Right *float64 `json:"right" api:"min=0,default=10"`
		// Left is the left margin in millimetres.
		Left *float64 `json:"left" api:"min=0,default=10"`
	} `json:"margin"`
	// Scale is the rendering scale, at most 2; 0 or absent means 1,
	// and a scale below 0.1 is 0.1.
	Scale        *float64 `json:"scale" api:"min=0,max=2,default=1"`
	AddTimestamp bool     `json:"addTimestamp"`
}

type url2PDFMeta struct {
	sitediag.PageVisit
	sitediag.URL2PDFSettings
	Test testRecord `json:"test"`
}

func (h *Handler) url2PDF(ctx context.Context, req *url2PDFRequest, test testRecord) (*response, error) {
	opts := sitediag.URL2PDFOptions{
		PageOptions:  req.PageOptions,
		Format:       req.Format,
		Orientation:  req.Orientation,
		AddTimestamp: req.AddTimestamp,
	}
	if req.Scale != nil {
		// An explicit 0 is out of range; only an absent scale means 1.
		if *req.Scale <= 0 {
			return nil, sitediag.InvalidParameter("scale", "must be greater than 0 and at most 2")
		}
		opts.Scale = *req.Scale
	}
	if m := req.Margin; m != nil {
		side := func(v *float64) float64 {
			if v == nil {
				return sitediag.DefaultPDFMargin
			}
			return *v
		}
		opts.Margin = &sitediag.PDFMargin{Top: side(m.Top), Bottom: side(m.Bottom), Right: side(m.Right), Left: side(m.Left)}
	}
	res, err := h.client.URL2PDF(ctx, req.URL, opts)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	link, err := h.storeArtifact(ctx, "pdf", res.Body)
	if err != nil {
		return nil, err
	}
	return &response{
		Message: pageMessage(res.PageVisit),
		Meta:    url2PDFMeta{PageVisit: res.PageVisit, URL2PDFSettings: res.Settings, Test: test},
		Data:    link,
	}, nil
}
