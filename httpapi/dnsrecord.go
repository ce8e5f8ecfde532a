package httpapi

import (
	"context"

	"github.com/sitediag/sitediag"
)

type dnsRecordRequest struct {
	URL   string   `json:"url"`
	Types []string `json:"types" openapi:"enum=A|AAAA|CNAME|MX|CAA|NS|SOA|SRV|TXT,unique"`
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
