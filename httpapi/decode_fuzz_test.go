package httpapi

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sitediag/sitediag"
)

// requestTypes are a fresh value of every operation's request body.
var requestTypes = []func() any{
	func() any { return new(request[sitediag.UpOptions]) },
	func() any { return new(request[sitediag.RedirectCheckOptions]) },
	func() any { return new(request[sitediag.DNSRecordsOptions]) },
	func() any { return new(request[sitediag.DNSSECOptions]) },
	func() any { return new(request[sitediag.OpenPortOptions]) },
	func() any { return new(request[sitediag.PingOptions]) },
	func() any { return new(request[sitediag.MTROptions]) },
	func() any { return new(request[sitediag.TLSScanOptions]) },
	func() any { return new(request[sitediag.ScreenshotOptions]) },
	func() any { return new(request[sitediag.URL2PDFOptions]) },
	func() any { return new(request[sitediag.MetaScrapeOptions]) },
	func() any { return new(request[sitediag.WebScrapeOptions]) },
	func() any { return new(request[sitediag.MixedContentOptions]) },
	func() any { return new(request[sitediag.LighthouseOptions]) },
	func() any { return new(request[sitediag.BrandOptions]) },
}

// FuzzDecode feeds arbitrary bodies to the request decoding of every
// operation: it never panics, and what it refuses is a 400, 413 or 415
// *sitediag.Error naming a field, never anything else. The seeds run in
// every go test; `go test -fuzz FuzzDecode ./httpapi` explores further.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `null`, `[]`, `{"url":"https://a.example/"}`,
		`{"url":"https://a.example/","url":"https://b.example/"}`,
		`{"url":"a.example","types":["A","mx"],"count":3,"maxHops":5,"topPorts":100,"portRanges":"80,443"}`,
		`{"url":"https://a.example/","margin":{"top":1.5,"left":2},"scale":1,"format":"A4","orientation":"landscape"}`,
		`{"url":"https://a.example/","device":"mobile","fullPage":true,"blockAds":true,"waitFor":"#x","waitTime":1000}`,
		`{"url":"https://a.example/","renderJS":false,"followRedirect":false,"proxyCountry":"us","mode":"enriched","refresh":true}`,
		`{"url": 5}`, `{"count": 1e400}`, `{"margin":{"top":{"a":[1,{"b":2}]}}}`, `{"url":"\u0000"}`, `{"a":1} {}`,
		strings.Repeat(`[`, 10000), `{"url":"` + strings.Repeat("a", 70<<10) + `"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, fresh := range requestTypes {
			r := httptest.NewRequest("POST", "/", strings.NewReader(string(body)))
			r.Header.Set("Content-Type", "application/json")
			err := decode(httptest.NewRecorder(), r, fresh())
			if err == nil {
				continue
			}
			var e *sitediag.Error
			if !errors.As(err, &e) {
				t.Fatalf("decode(%q) = %v, not a *sitediag.Error", body, err)
			}
			switch e.Code {
			case sitediag.CodeInvalidParameters, CodePayloadTooLarge:
			default:
				t.Fatalf("decode(%q) = %v, want INVALID_PARAMETERS or PAYLOAD_TOO_LARGE", body, err)
			}
			if e.Code == sitediag.CodeInvalidParameters && !strings.Contains(e.Details, ": ") {
				t.Fatalf("decode(%q) details %q name no field", body, e.Details)
			}
		}
	})
}
