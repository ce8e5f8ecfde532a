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
		{`{"url":"https://a.example/","u\u0072l":"https://b.example/"}`, new(request[sitediag.PingOptions]), "url: appears more than once"},
		{`{"margin":{"top":1},"margin":{"top":2}}`, new(request[sitediag.URL2PDFOptions]), "margin: appears more than once"},
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
		r := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
		r.Header.Set("Content-Type", "application/json")
		var req request[sitediag.UpOptions]
		err := decode(httptest.NewRecorder(), r, &req)
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
