package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

type openPortRequest struct {
	URL string `json:"url"`
	// TopPorts scans that many of the most common ports; 0 or absent:
	// 100 unless portRanges is given.
	TopPorts int `json:"topPorts" api:"enum=50|100|500|1000|5000,default=100"`
	// PortRanges are ports and ranges, comma separated (22,80,8000-8100).
	PortRanges     string `json:"portRanges"`
	DetectServices bool   `json:"detectServices"`
	ProxyCountry   string `json:"proxyCountry"`
}

type openPortMeta struct {
	URL            string     `json:"url"`
	IP             string     `json:"ip"`
	TopPorts       int        `json:"topPorts,omitempty"`
	PortRanges     string     `json:"portRanges,omitempty"`
	DetectServices bool       `json:"detectServices"`
	Test           testRecord `json:"test"`
}

func (h *Handler) openPort(ctx context.Context, req *openPortRequest, test testRecord) (*response, error) {
	res, err := h.client.OpenPort(ctx, req.URL, sitediag.OpenPortOptions{
		TopPorts:       req.TopPorts,
		PortRanges:     req.PortRanges,
		DetectServices: req.DetectServices,
		ProxyCountry:   req.ProxyCountry,
	})
	if err != nil {
		return nil, err
	}
	resp := &response{
		Meta: openPortMeta{URL: res.Host, IP: res.IP, TopPorts: res.TopPorts, PortRanges: res.PortRanges,
			DetectServices: res.DetectServices, Test: test},
		Data: res.OpenPorts,
	}
	if res.DetectServices {
		services := res.Services
		if services == nil {
			services = []sitediag.PortService{}
		}
		resp.Services = services
	}
	return resp, nil
}
