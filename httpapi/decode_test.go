package httpapi

import (
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
		{`{"count": 1.5}`, new(pingRequest), "count: must be an integer, not number 1.5"},
		{`{"count": "4"}`, new(pingRequest), "count: must be an integer, not string"},
		{`{"url": 5}`, new(pingRequest), "url: must be a string, not number"},
		{`{"scale": "1"}`, new(url2PDFRequest), "scale: must be a number, not string"},
		{`{"margin": {"top": true}}`, new(url2PDFRequest), "margin.top: must be a number, not bool"},
		{`{"types": "A"}`, new(dnsRecordRequest), "types: must be an array, not string"},
		{`{"followRedirect": 1}`, new(requestBody), "followRedirect: must be a boolean, not number"},
		{`{"blockAds": "no"}`, new(screenshotRequest), "blockAds: must be a boolean, not string"},
		{`{"hideCookie": {}}`, new(url2PDFRequest), "hideCookie: must be a boolean, not object"},
	} {
		r := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
		r.Header.Set("Content-Type", "application/json")
		err := decode(httptest.NewRecorder(), r, tc.v)
		if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want details %q", tc.body, err, tc.want)
		}
	}
}
