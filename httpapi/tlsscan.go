package httpapi

import (
	"context"
	"time"

	"github.com/sitediag/sitediag"
)

type tlsScanRequest struct {
	URL string `json:"url"`
	// ProbeTimeout is how long each probe may wait for an answer, in
	// seconds.
	ProbeTimeout float64 `json:"probeTimeout" api:"min=0,max=30,default=5"`
}

type tlsScanMeta struct {
	URL string `json:"url"`
	sitediag.TLSScanSettings
	Test testRecord `json:"test"`
}

func (h *Handler) tlsScan(ctx context.Context, req *tlsScanRequest, test testRecord) (*response, error) {
	opts := sitediag.TLSScanOptions{ProbeTimeout: time.Duration(req.ProbeTimeout * float64(time.Second))}
	res, err := h.client.TLSScan(ctx, req.URL, opts)
	if err != nil {
		return nil, err
	}
	resp := &response{Meta: tlsScanMeta{URL: res.Host, TLSScanSettings: res.Settings, Test: test}, Data: res}
	if res.Partial {
		resp.Message = "Partial result: the scan did not finish within the operation limit; data.unfinished says what is missing."
	}
	return resp, nil
}
