package httpapi

import (
	"github.com/sitediag/sitediag"

	"net/http/httptest"
	"strings"
	"testing"
)

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
		r := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
		r.Header.Set("Content-Type", "application/json")
		err := decode(httptest.NewRecorder(), r, tc.v)
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
	} {
		r := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
		r.Header.Set("Content-Type", "application/json")
		err := decode(httptest.NewRecorder(), r, tc.v)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want it accepted", tc.body, err)
		case tc.want != "" && (err == nil || !strings.HasSuffix(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want details %q", tc.body, err, tc.want)
		}
	}
}
