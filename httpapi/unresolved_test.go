package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	mdns "github.com/miekg/dns"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitest"
)

// TestTargetThatDoesNotExistIsNeverA5xx sends a name that does not
// resolve to every operation: that is the target's outcome (DESIGN §2),
// never a failure of the service.
func TestTargetThatDoesNotExistIsNeverA5xx(t *testing.T) {
	api := apitest.New(t, apitest.Options{Config: sitediag.Config{Timeout: 20 * time.Second}})
	const name = "no-such-name.test"
	type row struct {
		path    string
		status  int
		code    sitediag.Code // "" for a success
		need    func(*testing.T)
		details string // a substring of details, when an error
	}
	rows := []row{
		{path: "/up", status: http.StatusOK},
		{path: "/ttfb", status: http.StatusUnprocessableEntity, code: sitediag.CodeUnableToConnect},
		{path: "/httpheader", status: http.StatusUnprocessableEntity, code: sitediag.CodeUnableToConnect},
		{path: "/httpprotocol", status: http.StatusUnprocessableEntity, code: sitediag.CodeUnableToConnect},
		{path: "/redirectcheck", status: http.StatusUnprocessableEntity, code: sitediag.CodeUnableToConnect},
		{path: "/brokenlink", status: http.StatusUnprocessableEntity, code: sitediag.CodeUnableToConnect},
		{path: "/tlsscan", status: http.StatusUnprocessableEntity, code: sitediag.CodeTLSHandshakeFailed, details: "name not resolved"},
		{path: "/dnsrecord", status: http.StatusOK},
		{path: "/dnssec", status: http.StatusOK},
		{path: "/openport", status: http.StatusUnprocessableEntity, code: sitediag.CodeUnableToConnect, details: "name not resolved"},
		{path: "/ping", status: http.StatusUnprocessableEntity, code: sitediag.CodeUnableToConnect, details: "name not resolved"},
		{path: "/mtr", status: http.StatusUnprocessableEntity, code: sitediag.CodeUnableToConnect, details: "name not resolved"},
		{path: "/metascraping", status: http.StatusUnprocessableEntity, code: sitediag.CodeUnableToConnect},
		{path: "/screenshot", status: http.StatusUnprocessableEntity, code: sitediag.CodeUnableToConnect, need: needChromium, details: "name not resolved"},
		{path: "/url2pdf", status: http.StatusUnprocessableEntity, code: sitediag.CodeUnableToConnect, need: needChromium, details: "name not resolved"},
		{path: "/loadtime", status: http.StatusUnprocessableEntity, code: sitediag.CodeUnableToConnect, need: needChromium, details: "name not resolved"},
		{path: "/web-scraping", status: http.StatusUnprocessableEntity, code: sitediag.CodeUnableToConnect, need: needChromium, details: "name not resolved"},
		{path: "/mixedcontent", status: http.StatusUnprocessableEntity, code: sitediag.CodeUnableToConnect, need: needChromium, details: "name not resolved"},
		{path: "/brand", status: http.StatusUnprocessableEntity, code: sitediag.CodeUnableToConnect, need: needChromium, details: "name not resolved"},
		{path: "/lighthouse", status: http.StatusUnprocessableEntity, code: sitediag.CodeUnableToConnect, need: needLighthouse, details: "name not resolved"},
	}
	for _, r := range rows {
		t.Run(strings.TrimPrefix(r.path, "/"), func(t *testing.T) {
			if r.need != nil {
				r.need(t)
			}
			resp := api.Post(t, r.path, map[string]any{"url": "https://" + name + "/"})
			if r.code == "" {
				if resp.Status != r.status {
					t.Fatalf("status %d, want %d: %s", resp.Status, r.status, resp.Body)
				}
				return
			}
			resp.WantErrorDetails(t, r.status, r.code, r.details)
		})
	}
}

// TestDNSServerThatDoesNotAnswerIsNamed tells a name that does not exist
// from DNS servers that did not answer for it.
func TestDNSServerThatDoesNotAnswerIsNamed(t *testing.T) {
	// The job's deadline is longer than the resolver's per-query bound.
	api := apitest.New(t, apitest.Options{Config: sitediag.Config{Timeout: 15 * time.Second}})
	api.DNS.Handle(func(mdns.ResponseWriter, *mdns.Msg) {})
	for _, path := range []string{"/openport", "/ping", "/ttfb"} {
		resp := api.Post(t, path, map[string]any{"url": "https://slow.test/"})
		resp.WantError(t, http.StatusUnprocessableEntity, sitediag.CodeUnableToConnect)
		if d, _ := resp.Envelope["details"].(string); !strings.Contains(d, "DNS servers did not answer") {
			t.Errorf("%s details %q, want the DNS servers named", path, d)
		}
	}
}
