package httpapi

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sitediag/sitediag"
)

// decodeBody decodes body, POSTed as JSON, into v.
func decodeBody(body string, v any) error {
	r := httptest.NewRequest("POST", "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return decode(httptest.NewRecorder(), r, v)
}

// The details of a wrongly typed field name the field and the JSON type
// it takes.
func TestDecodeTypeErrors(t *testing.T) {
	for _, tc := range []struct {
		body string
		v    any
		want string
	}{
		{`{"count": 1.5}`, new(request[sitediag.PingOptions]), "count: must be an integer, not number 1.5"},
		{`{"count": "4"}`, new(request[sitediag.PingOptions]), "count: must be an integer, not string"},
		{`{"url": 5}`, new(request[sitediag.PingOptions]), "url: must be a string, not number"},
		{`{"scale": "1"}`, new(request[sitediag.URL2PDFOptions]), "scale: must be a number, not string"},
		{`{"margin": {"top": true}}`, new(request[sitediag.URL2PDFOptions]), "margin.top: must be a number, not bool"},
		{`{"types": "A"}`, new(request[sitediag.DNSRecordsOptions]), "types: must be an array, not string"},
		{`{"followRedirect": 1}`, new(request[sitediag.UpOptions]), "followRedirect: must be a boolean, not number"},
		{`{"blockAds": "no"}`, new(request[sitediag.ScreenshotOptions]), "blockAds: must be a boolean, not string"},
		{`{"hideCookie": {}}`, new(request[sitediag.URL2PDFOptions]), "hideCookie: must be a boolean, not object"},
	} {
		err := decodeBody(tc.body, tc.v)
		if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want details %q", tc.body, err, tc.want)
		}
	}
}

// A member named twice, at any depth and in any case, is refused and
// named: a gateway may read the first where encoding/json reads the last.
func TestDecodeRefusesDuplicateMembers(t *testing.T) {
	for _, tc := range []struct {
		body string
		v    any
		want string // "" when the body is accepted
	}{
		{`{"url":"https://a.example/","url":"https://b.example/"}`, new(request[sitediag.PingOptions]), "url: appears more than once"},
		{`{"url":"https://a.example/","URL":"https://b.example/"}`, new(request[sitediag.PingOptions]), "URL: appears more than once"},
		{`{"margin":{"top":1,"top":2}}`, new(request[sitediag.URL2PDFOptions]), "margin.top: appears more than once"},
		{`{"types":["A","MX"],"url":"a.example","types":["TXT"]}`, new(request[sitediag.DNSRecordsOptions]), "types: appears more than once"},
		{`{"margin":{"top":1},"url":"https://a.example/"}`, new(request[sitediag.URL2PDFOptions]), ""},
		{`{"types":["A","A2"],"url":"a.example"}`, new(request[sitediag.DNSRecordsOptions]), ""},
		{`{"url":"https://a.example/","u\u0072l":"https://b.example/"}`, new(request[sitediag.PingOptions]), "url: appears more than once"},
		{`{"margin":{"top":1},"margin":{"top":2}}`, new(request[sitediag.URL2PDFOptions]), "margin: appears more than once"},
	} {
		err := decodeBody(tc.body, tc.v)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want it accepted", tc.body, err)
		case tc.want != "" && (err == nil || !strings.HasSuffix(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want details %q", tc.body, err, tc.want)
		}
	}
}

// url is read in any case and spelling, the other members go to the
// options; of several wrong members, the first by name is named,
// whatever order the body has them in.
func TestDecodeRequest(t *testing.T) {
	for _, tc := range []struct {
		body    string
		url     string
		follow  sitediag.Toggle
		country string
		err     string
	}{
		{body: `{"url":"https://a.example/"}`, url: "https://a.example/"},
		{body: ` { "URL" : "https://a.example/" , "followRedirect" : false } `, url: "https://a.example/", follow: sitediag.Off},
		{body: `{"u\u0072l":"https://a.example/","proxyCountry":"us","followRedirect":true}`, url: "https://a.example/", follow: sitediag.On, country: "us"},
		{body: `{"proxyCountry":"de"}`, country: "de"},
		{body: `{"url":null}`},
		{body: `{"zeta":1,"url":"https://a.example/","alpha":2}`, err: "alpha: is not a known field"},
		{body: `{"alpha":2,"zeta":1}`, err: "alpha: is not a known field"},
		{body: `{"proxyCountry":5,"followRedirect":"no"}`, err: "followRedirect: must be a boolean, not string"},
		{body: `[]`, err: "body: must be a JSON object"},
		{body: "\u00a0{}", err: "body: is not valid JSON"},
		{body: `{"url":"https://a.example/"} {}`, err: "body: must hold one JSON object"},
		{body: " \n\t", url: ""},
	} {
		var req request[sitediag.UpOptions]
		err := decodeBody(tc.body, &req)
		switch {
		case tc.err != "":
			if err == nil || !strings.HasSuffix(err.Error(), tc.err) {
				t.Errorf("%s: got %v, want details %q", tc.body, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.body, err)
		case req.URL != tc.url || req.Options.FollowRedirect != tc.follow || req.Options.ProxyCountry != tc.country:
			t.Errorf("%s: got %+v", tc.body, req)
		}
	}
}

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
			err := decodeBody(string(body), fresh())
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
