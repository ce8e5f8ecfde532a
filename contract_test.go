package sitediag_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/content"
	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/apitag"
)

// TestEnumsAreTheMechanisms holds the enums the API's tags write (struct
// tags must be constants) to the lists the mechanisms check against, so
// a record type or format added to one is added to the other.
func TestEnumsAreTheMechanisms(t *testing.T) {
	enum := func(typ reflect.Type, member string) []string {
		for _, f := range apitag.Fields(typ) {
			if f.Name == member {
				return f.Enum
			}
		}
		t.Fatalf("%v has no member %q", typ, member)
		return nil
	}
	if got, want := enum(reflect.TypeFor[sitediag.DNSRecordsOptions](), "types"), dns.RecordTypes(); !slices.Equal(got, want) {
		t.Errorf("/dnsrecord types enum %v, dns.RecordTypes() %v", got, want)
	}
	var formats []string
	for _, f := range content.Formats() {
		formats = append(formats, string(f))
	}
	if got := enum(reflect.TypeFor[sitediag.WebScrapeOptions](), "format"); !slices.Equal(got, formats) {
		t.Errorf("/web-scraping format enum %v, content.Formats() %v", got, formats)
	}
}

// TestOptionsAreTheRequestBodies decodes an example body of every
// operation (the API's, url aside) into the library's options, strictly,
// and encodes the options back: every member of the example comes back
// with the same value, and every other member is absent in meaning
// (null, "", 0 or an empty object: the default).
func TestOptionsAreTheRequestBodies(t *testing.T) {
	for _, tc := range []struct {
		op   string
		opts any
		body string
	}{
		{"up", &sitediag.UpOptions{}, `{"followRedirect":false,"proxyCountry":"us"}`},
		{"redirectcheck", &sitediag.RedirectCheckOptions{}, `{"proxyCountry":"de"}`},
		{"ttfb", &sitediag.TTFBOptions{}, `{"followRedirect":true}`},
		{"loadtime", &sitediag.LoadTimeOptions{}, `{"followRedirect":true,"proxyCountry":"us"}`},
		{"httpheader", &sitediag.HTTPHeaderOptions{}, `{"followRedirect":false}`},
		{"httpprotocol", &sitediag.HTTPProtocolOptions{}, `{"followRedirect":true}`},
		{"brokenlink", &sitediag.BrokenLinkOptions{}, `{"followRedirect":false,"proxyCountry":"fr"}`},
		{"dnsrecord", &sitediag.DNSRecordsOptions{}, `{"types":["A","MX","TXT"]}`},
		{"dnssec", &sitediag.DNSSECOptions{}, `{}`},
		{"tlsscan", &sitediag.TLSScanOptions{}, `{"probeTimeout":2.5}`},
		{"openport", &sitediag.OpenPortOptions{}, `{"portRanges":"22,80,8000-8100","detectServices":true,"concurrency":50,"portTimeout":0.5}`},
		{"ping", &sitediag.PingOptions{}, `{"count":8}`},
		{"mtr", &sitediag.MTROptions{}, `{"count":3,"maxHops":20,"noLookup":true}`},
		{"screenshot", &sitediag.ScreenshotOptions{}, `{"device":"mobile","type":"jpeg","fullPage":true,"blockAds":false,"hideCookie":true,
			"skipCaptcha":false,"addTimestamp":true,"viewportWidth":1024,"viewportHeight":700,"pageHeight":3000,"theme":"dark",
			"delay":2,"disableAnimations":true,"quality":70,"scaleFactor":1.5,"selector":"#main","fallbackToFullPage":true,
			"removeBackground":true,"highlightLinks":true,"captureBeyondViewport":false,"inline":true,"timeout":20}`},
		{"url2pdf", &sitediag.URL2PDFOptions{}, `{"device":"desktop","proxyCountry":"us","format":"letter","orientation":"landscape",
			"margin":{"top":5,"bottom":0,"right":12.5,"left":20},"scale":0.8,"hideCookie":true,"skipCaptcha":true,"addTimestamp":true}`},
		{"metascraping", &sitediag.MetaScrapeOptions{}, `{"device":"mobile","blockAds":true,"renderJS":false,"format":"markdown","fileOutput":true}`},
		{"web-scraping", &sitediag.WebScrapeOptions{}, `{"format":["markdown","json"],"waitTime":2,"waitFor":"#app","renderJS":true,
			"fileOutput":false,"extractionMode":"cssSchema","extractionSchema":{"name":"items","baseSelector":"li",
			"fields":[{"name":"title","selector":"h2","type":"text"}]}}`},
		{"web-scraping, one format", &sitediag.WebScrapeOptions{}, `{"format":"text-llm"}`},
		{"mixedcontent", &sitediag.MixedContentOptions{}, `{"followRedirect":true,"device":"mobile"}`},
		{"brand", &sitediag.BrandOptions{}, `{"refresh":true,"mode":"enriched","timeout":30}`},
		{"lighthouse", &sitediag.LighthouseOptions{}, `{"device":"mobile","followRedirect":false,"parameters":["--only-categories=performance"]}`},
	} {
		t.Run(tc.op, func(t *testing.T) {
			dec := json.NewDecoder(bytes.NewReader([]byte(tc.body)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(tc.opts); err != nil {
				t.Fatalf("decoding %s: %v", tc.body, err)
			}
			out, err := json.Marshal(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var sent, back any
			json.Unmarshal([]byte(tc.body), &sent)
			json.Unmarshal(out, &back)
			if diff := sameMeaning(sent, back, ""); diff != "" {
				t.Errorf("encoded back as %s: %s", out, diff)
			}
		})
	}
}

// sameMeaning compares what was sent with what the options encode back
// to: the same values, members not sent absent in meaning, and one
// string the same as a list of it (web-scraping's format). It returns
// the first difference, at path.
func sameMeaning(sent, back any, path string) string {
	switch s := sent.(type) {
	case map[string]any:
		b, ok := back.(map[string]any)
		if !ok {
			return path + ": not an object"
		}
		for k, v := range b {
			if _, ok := s[k]; !ok && !absent(v) {
				return path + "." + k + ": not sent, encoded back as a value"
			}
		}
		for k, v := range s {
			if diff := sameMeaning(v, b[k], path+"."+k); diff != "" {
				return diff
			}
		}
		return ""
	case []any:
		b, ok := back.([]any)
		if !ok || len(b) != len(s) {
			return path + ": not the same list"
		}
		for i := range s {
			if diff := sameMeaning(s[i], b[i], path); diff != "" {
				return diff
			}
		}
		return ""
	case string:
		if b, ok := back.([]any); ok && len(b) == 1 {
			back = b[0]
		}
	}
	if !reflect.DeepEqual(sent, back) {
		return path + ": sent " + fmt.Sprint(sent) + ", encoded back " + fmt.Sprint(back)
	}
	return ""
}

// absent says whether v is a JSON value the API reads as absent: null,
// "", 0, or an object of such values.
func absent(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case float64:
		return v == 0
	case map[string]any:
		for _, m := range v {
			if !absent(m) {
				return false
			}
		}
		return true
	case []any:
		return len(v) == 0
	}
	return false
}

// TestToggleIsABoolean: a Toggle is a JSON boolean both ways, and unset
// is null.
func TestToggleIsABoolean(t *testing.T) {
	b, _ := json.Marshal(sitediag.UpOptions{RequestOptions: sitediag.RequestOptions{FollowRedirect: sitediag.Off}})
	if string(b) != `{"followRedirect":false,"proxyCountry":""}` {
		t.Errorf("got %s", b)
	}
	b, _ = json.Marshal(sitediag.UpOptions{})
	if string(b) != `{"followRedirect":null,"proxyCountry":""}` {
		t.Errorf("got %s", b)
	}
	var o sitediag.ScreenshotOptions
	if err := json.Unmarshal([]byte(`{"fullPage":true,"delay":2,"captureBeyondViewport":false}`), &o); err != nil {
		t.Fatal(err)
	}
	if o.FullPage != sitediag.On || o.Delay != 2 || o.Delay.Duration().Seconds() != 2 || o.CaptureBeyondViewport != sitediag.Off {
		t.Errorf("got %+v", o)
	}
}
