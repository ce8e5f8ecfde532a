package httpapi

import (
	"bytes"
	"context"

	"github.com/sitediag/sitediag"
)

type lighthouseRequest struct {
	URL string `json:"url"`
	sitediag.LighthouseOptions
}

type lighthouseMeta struct {
	sitediag.PageVisit
	sitediag.LighthouseSettings
	Scores     sitediag.LighthouseScores `json:"scores"`
	JSONReport string                    `json:"jsonReport"`
	Test       testRecord                `json:"test"`
}

func (h *Handler) lighthouse(ctx context.Context, req *lighthouseRequest, test testRecord) (*response, error) {
	res, err := h.client.Lighthouse(ctx, req.URL, req.LighthouseOptions)
	if err != nil {
		return nil, err
	}
	html, err := h.storeArtifact(ctx, lighthouseReportExt, bytes.NewReader(res.HTMLReport))
	if err != nil {
		return nil, err
	}
	json, err := h.storeArtifact(ctx, "json", bytes.NewReader(res.JSONReport))
	if err != nil {
		return nil, err
	}
	meta := lighthouseMeta{PageVisit: res.PageVisit, LighthouseSettings: res.Settings, Scores: res.Scores, JSONReport: json, Test: test}
	return &response{Meta: meta, Data: html}, nil
}
