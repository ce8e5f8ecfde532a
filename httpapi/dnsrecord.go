package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

type dnsRecordRequest struct {
	URL   string   `json:"url"`
	Types []string `json:"types" api:"enum=A|AAAA|CNAME|MX|CAA|NS|SOA|SRV|TXT"`
}

type dnsRecordMeta struct {
	URL   string     `json:"url"`
	Types []string   `json:"types"`
	Rcode string     `json:"rcode"`
	Test  testRecord `json:"test"`
}

func (h *Handler) dnsRecord(ctx context.Context, req *dnsRecordRequest, test testRecord) (*response, error) {
	res, err := h.client.DNSRecords(ctx, req.URL, sitediag.DNSRecordsOptions{Types: req.Types})
	if err != nil {
		return nil, err
	}
	return &response{
		Meta: dnsRecordMeta{URL: res.Host, Types: res.Types, Rcode: res.Rcode, Test: test},
		Data: res,
	}, nil
}
