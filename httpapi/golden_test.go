package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/sitediag/sitediag/internal/apitest"
)

// TestGoldenShapes pins the JSON of the API's shapes, success and error,
// in testdata/*.golden; refresh them with go test -run TestGoldenShapes
// -update when a change is meant.
func TestGoldenShapes(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	api.DNS.Add(t, dnsRecords...)
	siteURL := serveAs(t, api, "www.site.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
			return
		}
		w.Write([]byte("ok"))
	}))
	replace := map[string]string{":" + port(siteURL): ":PORT"}

	for _, tc := range []struct {
		name, method, path string
		body               any
	}{
		{"dnsrecord", "POST", "/dnsrecord", map[string]any{"url": "site.test"}},
		{"dnsrecord_types", "POST", "/dnsrecord", map[string]any{"url": "site.test", "types": []string{"mx", "TXT"}}},
		{"up_redirected", "POST", "/up", map[string]any{"url": siteURL + "/old"}},
		{"up_unfollowed", "POST", "/up", map[string]any{"url": siteURL + "/old", "followRedirect": false}},
		{"error_invalid_url", "POST", "/up", map[string]any{"url": "ftp://site.test/"}},
		{"error_invalid_parameters", "POST", "/ttfb", `{"url": "https://site.test/", "followRedirect": 1}`},
		{"error_unknown_field", "POST", "/screenshot", map[string]any{"url": "https://site.test/", "colour": "red"}},
		{"error_not_allowed", "POST", "/up", map[string]any{"url": "http://169.254.169.254/"}},
		{"error_not_found", "POST", "/nothing", map[string]any{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api.Post(t, tc.path, tc.body).WantGolden(t, tc.name, replace)
		})
	}
}
