package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	mdns "github.com/miekg/dns"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitest"
)

// dnsRecords is a zone with every supported type.
var dnsRecords = []string{
	"site.test. 60 IN A 192.0.2.1",
	"site.test. 60 IN AAAA 2001:db8::1",
	"site.test. 60 IN MX 10 mx.site.test.",
	`site.test. 60 IN CAA 0 issue "ca.example"`,
	"site.test. 60 IN NS ns1.site.test.",
	"site.test. 60 IN SOA ns1.site.test. hostmaster.site.test. 7 7200 3600 1209600 300",
	"site.test. 60 IN SRV 10 5 443 web.site.test.",
	`site.test. 60 IN TXT "a" "b"`,
	"www.site.test. 60 IN CNAME site.test.",
	"1.2.0.192.in-addr.arpa. 60 IN NS ns1.site.test.",
	`_dmarc.site.test. 60 IN TXT "v=DMARC1; p=none"`,
	`selector1._domainkey.site.test. 60 IN TXT "v=DKIM1; k=rsa"`,
	"_sip._tcp.site.test. 60 IN SRV 10 5 5060 sip.site.test.",
}

func compact(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDNSRecordEnvelope(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	api.DNS.Add(t, dnsRecords...)
	resp := api.Post(t, "/dnsrecord", map[string]any{"url": "https://site.test/some/page"})
	meta, data := resp.WantSuccess(t)
	if got, want := compact(t, meta["types"]), `["A","AAAA","CNAME","MX","CAA","NS","SOA","SRV","TXT"]`; got != want {
		t.Errorf("meta.types: got %s, want %s", got, want)
	}
	if meta["url"] != "site.test" || meta["rcode"] != "NOERROR" {
		t.Errorf("meta: got %v, want url site.test and rcode NOERROR", meta)
	}
	want := `{"A":["192.0.2.1"],"AAAA":["2001:db8::1"],"CAA":[{"critical":0,"tag":"issue","value":"ca.example"}],` +
		`"CNAME":[],"MX":[{"exchange":"mx.site.test","priority":10}],"NS":["ns1.site.test"],` +
		`"SOA":{"expire":1209600,"hostmaster":"hostmaster.site.test","minttl":300,"nsname":"ns1.site.test","refresh":7200,"retry":3600,"serial":7},` +
		`"SRV":[{"name":"web.site.test","port":443,"priority":10,"weight":5}],"TXT":["ab"]}`
	if got := compact(t, data); got != want {
		t.Errorf("data:\ngot  %s\nwant %s", got, want)
	}
	if _, ok := resp.Envelope["message"]; ok {
		t.Errorf("unexpected message: %s", resp.Body)
	}
}

func TestDNSRecordTargets(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	api.DNS.Add(t, dnsRecords...)
	tests := []struct {
		name     string
		body     map[string]any
		wantMeta string
		wantData string
	}{
		{
			name:     "bare host, types in any case",
			body:     map[string]any{"url": "site.test", "types": []string{"mx", "a"}},
			wantMeta: `{"rcode":"NOERROR","types":["MX","A"],"url":"site.test"}`,
			wantData: `{"A":["192.0.2.1"],"MX":[{"exchange":"mx.site.test","priority":10}]}`,
		},
		{
			name:     "host with a port",
			body:     map[string]any{"url": "site.test:8443", "types": []string{"A"}},
			wantMeta: `{"rcode":"NOERROR","types":["A"],"url":"site.test:8443"}`,
			wantData: `{"A":["192.0.2.1"]}`,
		},
		{
			name:     "alias",
			body:     map[string]any{"url": "http://www.site.test", "types": []string{"A", "CNAME"}},
			wantMeta: `{"rcode":"NOERROR","types":["A","CNAME"],"url":"www.site.test"}`,
			wantData: `{"A":["192.0.2.1"],"CNAME":["site.test"]}`,
		},
		{
			name:     "IP literal: its reverse name",
			body:     map[string]any{"url": "192.0.2.1", "types": []string{"NS", "A"}},
			wantMeta: `{"rcode":"NOERROR","types":["NS","A"],"url":"192.0.2.1"}`,
			wantData: `{"A":[],"NS":["ns1.site.test"]}`,
		},
		{
			name:     "DMARC: an underscore label",
			body:     map[string]any{"url": "_dmarc.site.test", "types": []string{"TXT"}},
			wantMeta: `{"rcode":"NOERROR","types":["TXT"],"url":"_dmarc.site.test"}`,
			wantData: `{"TXT":["v=DMARC1; p=none"]}`,
		},
		{
			name:     "DKIM selector",
			body:     map[string]any{"url": "selector1._domainkey.site.test", "types": []string{"TXT"}},
			wantMeta: `{"rcode":"NOERROR","types":["TXT"],"url":"selector1._domainkey.site.test"}`,
			wantData: `{"TXT":["v=DKIM1; k=rsa"]}`,
		},
		{
			name:     "SRV service name",
			body:     map[string]any{"url": "_sip._tcp.site.test", "types": []string{"SRV"}},
			wantMeta: `{"rcode":"NOERROR","types":["SRV"],"url":"_sip._tcp.site.test"}`,
			wantData: `{"SRV":[{"name":"sip.site.test","port":5060,"priority":10,"weight":5}]}`,
		},
		{
			name:     "NXDOMAIN is a result",
			body:     map[string]any{"url": "https://nowhere.test", "types": []string{"A", "SOA"}},
			wantMeta: `{"rcode":"NXDOMAIN","types":["A","SOA"],"url":"nowhere.test"}`,
			wantData: `{"A":[]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meta, data := api.Post(t, "/dnsrecord", tt.body).WantSuccess(t)
			delete(meta, "test")
			if got := compact(t, meta); got != tt.wantMeta {
				t.Errorf("meta: got %s, want %s", got, tt.wantMeta)
			}
			if got := compact(t, data); got != tt.wantData {
				t.Errorf("data: got %s, want %s", got, tt.wantData)
			}
		})
	}
}

func TestDNSRecordErrors(t *testing.T) {
	api := apitest.New(t, apitest.Options{Config: sitediag.Config{Timeout: 300 * time.Millisecond}})
	api.DNS.Add(t, dnsRecords...)
	tests := []struct {
		name   string
		body   any
		status int
		code   sitediag.Code
	}{
		{"missing url", map[string]any{}, http.StatusBadRequest, sitediag.CodeInvalidURL},
		{"other scheme", map[string]any{"url": "ftp://site.test"}, http.StatusBadRequest, sitediag.CodeInvalidURL},
		{"userinfo", map[string]any{"url": "http://u:p@site.test"}, http.StatusBadRequest, sitediag.CodeInvalidURL},
		{"numeric host", map[string]any{"url": "127.1"}, http.StatusBadRequest, sitediag.CodeInvalidURL},
		{"not a DNS name character", map[string]any{"url": "si$te.test"}, http.StatusBadRequest, sitediag.CodeInvalidURL},
		{"unknown type", map[string]any{"url": "site.test", "types": []string{"A", "PTR"}}, http.StatusBadRequest, sitediag.CodeInvalidParameters},
		{"duplicate type", map[string]any{"url": "site.test", "types": []string{"a", "A"}}, http.StatusBadRequest, sitediag.CodeInvalidParameters},
		{"types not an array", `{"url":"site.test","types":"A"}`, http.StatusBadRequest, sitediag.CodeInvalidParameters},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api.Post(t, "/dnsrecord", tt.body).WantError(t, tt.status, tt.code)
		})
	}
	t.Run("no server answers", func(t *testing.T) {
		api.DNS.Handle(func(mdns.ResponseWriter, *mdns.Msg) {})
		api.Post(t, "/dnsrecord", map[string]any{"url": "site.test"}).WantError(t, http.StatusInternalServerError, sitediag.CodeDNSLookupFailed)
	})
}

func TestDNSRecordBadTypeDetails(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	resp := api.Post(t, "/dnsrecord", map[string]any{"url": "site.test", "types": []string{"PTR"}})
	resp.WantError(t, http.StatusBadRequest, sitediag.CodeInvalidParameters)
	if want := `types: "PTR" is not one of A, AAAA, CNAME, MX, CAA, NS, SOA, SRV or TXT`; resp.Envelope["details"] != want {
		t.Errorf("details: got %q, want %q", resp.Envelope["details"], want)
	}
}
