package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	mdns "github.com/miekg/dns"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/dnstest"
)

func TestDNSSECEnvelope(t *testing.T) {
	now := time.Now()
	zone, anchor := dnstest.SignSite(t, now.Add(-time.Hour), now.Add(time.Hour))
	api := apitest.New(t, apitest.Options{Config: sitediag.Config{DNSSECTrustAnchor: anchor}})
	api.DNS.ServeZone(zone)
	api.DNS.Add(t, "plain.test. 3600 IN SOA ns1.plain.test. hostmaster.plain.test. 1 7200 3600 1209600 300")

	t.Run("signed", func(t *testing.T) {
		meta, data := api.Post(t, "/dnssec", map[string]any{"url": "https://site.test/x"}).WantSuccess(t)
		delete(meta, "test")
		if got := compact(t, meta); got != `{"url":"site.test"}` {
			t.Errorf("meta: got %s", got)
		}
		d, _ := data.(map[string]any)
		if d["isEnabled"] != true || d["zone"] != "site.test" {
			t.Errorf("got %v, want isEnabled and zone site.test", d)
		}
		keys, _ := d["dnskey"].([]any)
		sigs, _ := d["rrsig"].([]any)
		if len(keys) != 2 || !strings.HasPrefix(keys[0].(string), "DNSKEY 257 3 13 ") ||
			len(sigs) != 2 || !strings.HasPrefix(sigs[0].(string), "RRSIG DNSKEY 13 2 3600 ") ||
			!strings.Contains(sigs[0].(string), " site.test. ") {
			t.Errorf("dnskey %q, rrsig %q: want the KSK and ZSK and two signatures in record text", keys, sigs)
		}
		v, _ := d["validation"].(map[string]any)
		if v["status"] != "secure" || v["dnskeySignatureValid"] != true || v["dsMatchesKsk"] != true || v["reason"] == "" {
			t.Errorf("validation: got %v, want secure", v)
		}
	})
	t.Run("unsigned", func(t *testing.T) {
		_, data := api.Post(t, "/dnssec", map[string]any{"url": "plain.test"}).WantSuccess(t)
		want := `{"dnskey":[],"isEnabled":false,"rrsig":[],"validation":{"chain":[],"dnskeySignatureValid":null,"dsMatchesKsk":null,` +
			`"reason":"plain.test is outside the trust anchor's zone site.test","status":"indeterminate"},"zone":"plain.test"}`
		if got := compact(t, data); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	})
	t.Run("underscore label", func(t *testing.T) {
		meta, data := api.Post(t, "/dnssec", map[string]any{"url": "_dmarc.plain.test"}).WantSuccess(t)
		if d, _ := data.(map[string]any); meta["url"] != "_dmarc.plain.test" || d["isEnabled"] != false {
			t.Errorf("meta %v, data %v: want url _dmarc.plain.test, unsigned", meta, data)
		}
	})
}

func TestDNSSECErrors(t *testing.T) {
	const timeout = 300 * time.Millisecond
	api := apitest.New(t, apitest.Options{Config: sitediag.Config{Timeout: timeout}})
	for _, tt := range []struct {
		name string
		url  string
	}{{"missing url", ""}, {"other scheme", "ftp://site.test"}, {"bad host", "site..test"}} {
		t.Run(tt.name, func(t *testing.T) {
			api.Post(t, "/dnssec", map[string]any{"url": tt.url}).WantError(t, http.StatusBadRequest, sitediag.CodeInvalidURL)
		})
	}
	for _, tt := range []struct {
		name  string
		rcode int
	}{{"SERVFAIL", mdns.RcodeServerFailure}, {"REFUSED", mdns.RcodeRefused}} {
		t.Run(tt.name, func(t *testing.T) {
			api.DNS.Handle(func(w mdns.ResponseWriter, req *mdns.Msg) {
				resp := new(mdns.Msg)
				w.WriteMsg(resp.SetRcode(req, tt.rcode))
			})
			api.Post(t, "/dnssec", map[string]any{"url": "site.test"}).WantError(t, http.StatusBadGateway, sitediag.CodeDNSSECQueryFailed)
		})
	}
	t.Run("server never answers", func(t *testing.T) {
		api.DNS.Handle(func(mdns.ResponseWriter, *mdns.Msg) {})
		start := time.Now()
		api.Post(t, "/dnssec", map[string]any{"url": "site.test"}).WantError(t, http.StatusGatewayTimeout, sitediag.CodeDNSSECTimeout)
		// The operation's timeout bounds it; the margin is loose on purpose.
		if elapsed := time.Since(start); elapsed > timeout+5*time.Second {
			t.Errorf("took %v with a %v timeout", elapsed, timeout)
		}
	})
}
