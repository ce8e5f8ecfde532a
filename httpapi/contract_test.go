package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/blobstore"
	"github.com/sitediag/sitediag/dns"
)

// TestResultsAreTheData hands a result of every operation to its
// envelope and checks that data is the result's JSON (or, where the API
// sends one member of it, that member's JSON; or, for a file, the URL of
// an artifact holding the file), and that meta echoes every member of the
// settings the operation ran with.
func TestResultsAreTheData(t *testing.T) {
	client, err := sitediag.New(sitediag.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	store, err := blobstore.OpenDir(t.TempDir(), blobstore.Options{TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	h := New(client, Options{Artifacts: store})
	ctx := context.WithValue(context.Background(), requestKey{}, &requestInfo{base: "http://api.test"})
	test := testRecord{ID: "t"}
	info := sitediag.RequestInfo{URL: "https://site.test/", RedirectedURL: "https://site.test/",
		Settings: sitediag.RequestOptions{FollowRedirect: sitediag.On, ProxyCountry: ""}}
	visit := sitediag.PageVisit{URL: "https://site.test/", RedirectedURL: "https://site.test/"}
	score := 97
	artifact := func(t *testing.T, data any, want []byte) {
		t.Helper()
		link, _ := data.(string)
		name, ok := strings.CutPrefix(link, "http://api.test/artifacts/")
		if !ok {
			t.Fatalf("data %v is not an artifact URL", data)
		}
		r, _, err := store.Open(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		got, _ := io.ReadAll(r)
		if !bytes.Equal(got, want) {
			t.Errorf("artifact %s holds %q, want %q", name, got, want)
		}
	}
	for _, tc := range []struct {
		op       string
		respond  func() (*response, error)
		data     any // the result, or the member of it, data must be
		file     []byte
		settings any
	}{
		{"up", func() (*response, error) {
			return h.up(ctx, &sitediag.UpResult{Reachable: true, StatusCode: 200, ReasonPhrase: "OK", Host: "site.test", RequestInfo: info}, test)
		}, &sitediag.UpResult{StatusCode: 200, ReasonPhrase: "OK"}, nil, info.Settings},
		{"redirectcheck", func() (*response, error) {
			return h.redirectCheck(ctx, &sitediag.RedirectCheckResult{Hops: []sitediag.Hop{{URL: "https://site.test/", Status: 200,
				Headers: []sitediag.Header{{Name: "server", Value: "x"}}}}, Settings: sitediag.RedirectCheckOptions{ProxyCountry: "us"}}, test)
		}, []sitediag.Hop{{URL: "https://site.test/", Status: 200, Headers: []sitediag.Header{{Name: "server", Value: "x"}}}}, nil,
			sitediag.RedirectCheckOptions{ProxyCountry: "us"}},
		{"ttfb", func() (*response, error) {
			return h.ttfb(ctx, &sitediag.TTFBResult{TTFB: 12.5, RequestInfo: info}, test)
		}, 12.5, nil, info.Settings},
		{"loadtime", func() (*response, error) {
			return h.loadTime(ctx, &sitediag.LoadTimeResult{StatusCode: 200, RequestInfo: info}, test)
		}, &sitediag.LoadTimeResult{StatusCode: 200}, nil, info.Settings},
		{"dnssec", func() (*response, error) {
			return h.dnssec(ctx, &sitediag.DNSSECResult{Host: "site.test"}, test)
		}, &sitediag.DNSSECResult{}, nil, nil},
		{"tlsscan", func() (*response, error) {
			return h.tlsScan(ctx, &sitediag.TLSScanResult{Host: "site.test", Settings: sitediag.TLSScanOptions{ProbeTimeout: 5}}, test)
		}, &sitediag.TLSScanResult{}, nil, sitediag.TLSScanOptions{ProbeTimeout: 5}},
		{"ping", func() (*response, error) {
			return h.ping(ctx, &sitediag.PingResult{Host: "site.test", Settings: sitediag.PingOptions{Count: 4}}, test)
		}, &sitediag.PingResult{}, nil, sitediag.PingOptions{Count: 4}},
		{"httpheader", func() (*response, error) {
			return h.httpHeader(ctx, &sitediag.HTTPHeaderResult{Headers: []sitediag.Header{{Name: "a", Value: "b"}}, RequestInfo: info}, test)
		}, []sitediag.Header{{Name: "a", Value: "b"}}, nil, info.Settings},
		{"httpprotocol", func() (*response, error) {
			return h.httpProtocol(ctx, &sitediag.HTTPProtocolResult{ProtocolSupport: sitediag.ProtocolSupport{HTTP11: true, HTTP2: true,
				HTTP3SupportedVersion: []string{}}, RequestInfo: info}, test)
		}, sitediag.ProtocolSupport{HTTP11: true, HTTP2: true, HTTP3SupportedVersion: []string{}}, nil, info.Settings},
		{"brokenlink", func() (*response, error) {
			return h.brokenLink(ctx, &sitediag.BrokenLinkResult{Links: []sitediag.LinkResult{{Link: "https://site.test/x", Status: 404}},
				Summary: sitediag.LinkSummary{Total: 1, Broken: 1}, RequestInfo: info}, test)
		}, []sitediag.LinkResult{{Link: "https://site.test/x", Status: 404}}, nil, info.Settings},
		{"dnsrecord", func() (*response, error) {
			return h.dnsRecord(ctx, &sitediag.DNSRecordsResult{Records: dns.Records{Types: []string{"A"}, Rcode: "NOERROR", A: []string{"192.0.2.1"}},
				Settings: sitediag.DNSRecordsOptions{Types: []string{"A"}}}, test)
		}, dns.Records{Types: []string{"A"}, Rcode: "NOERROR", A: []string{"192.0.2.1"}}, nil, sitediag.DNSRecordsOptions{Types: []string{"A"}}},
		{"openport", func() (*response, error) {
			return h.openPort(ctx, &sitediag.OpenPortResult{OpenPorts: []uint16{22, 443}, Settings: sitediag.OpenPortOptions{TopPorts: 100,
				DetectServices: sitediag.Off, Concurrency: 200, PortTimeout: 1.5}}, test)
		}, []uint16{22, 443}, nil, sitediag.OpenPortOptions{TopPorts: 100, DetectServices: sitediag.Off, Concurrency: 200, PortTimeout: 1.5}},
		{"mtr", func() (*response, error) {
			return h.mtr(ctx, &sitediag.MTRResult{Hops: []sitediag.MTRHop{{Hop: 1, Host: "gw", IP: "192.0.2.1", ASN: "AS???"}},
				Settings: sitediag.MTROptions{Count: 5, MaxHops: 30, NoLookup: sitediag.Off}}, test)
		}, []sitediag.MTRHop{{Hop: 1, Host: "gw", IP: "192.0.2.1", ASN: "AS???"}}, nil, sitediag.MTROptions{Count: 5, MaxHops: 30, NoLookup: sitediag.Off}},
		{"screenshot", func() (*response, error) {
			return h.screenshot(ctx, &sitediag.ScreenshotResult{Image: []byte("png bytes"), PageVisit: visit,
				Settings: sitediag.ScreenshotOptions{Type: "png", ViewportWidth: 1366, Inline: sitediag.Off}}, test)
		}, nil, []byte("png bytes"), sitediag.ScreenshotOptions{Type: "png", ViewportWidth: 1366, Inline: sitediag.Off}},
		{"url2pdf", func() (*response, error) {
			return h.url2PDF(ctx, &sitediag.URL2PDFResult{Body: io.NopCloser(strings.NewReader("%PDF")), PageVisit: visit,
				Settings: sitediag.URL2PDFOptions{Format: "a4", Scale: 1}}, test)
		}, nil, []byte("%PDF"), sitediag.URL2PDFOptions{Format: "a4", Scale: 1}},
		{"metascraping", func() (*response, error) {
			return h.metaScrape(ctx, &sitediag.MetaScrapeResult{Metadata: &sitediag.Metadata{Title: "T"}, PageVisit: visit,
				Settings: sitediag.MetaScrapeOptions{Format: "json", FileOutput: sitediag.Off}}, test)
		}, &sitediag.Metadata{Title: "T"}, nil, sitediag.MetaScrapeOptions{Format: "json", FileOutput: sitediag.Off}},
		{"web-scraping", func() (*response, error) {
			return h.webScrape(ctx, &sitediag.WebScrapeResult{Content: map[sitediag.ScrapeFormat]any{"markdown": "# T", "text": "T"},
				PageVisit: visit, Settings: sitediag.WebScrapeOptions{Format: sitediag.ScrapeFormats{"markdown", "text"}}}, test)
		}, map[sitediag.ScrapeFormat]any{"markdown": "# T", "text": "T"}, nil, sitediag.WebScrapeOptions{Format: sitediag.ScrapeFormats{"markdown", "text"}}},
		{"web-scraping as a file", func() (*response, error) {
			return h.webScrape(ctx, &sitediag.WebScrapeResult{Content: map[sitediag.ScrapeFormat]any{"markdown": "# T"},
				PageVisit: visit, Settings: sitediag.WebScrapeOptions{Format: sitediag.ScrapeFormats{"markdown"}, FileOutput: sitediag.On}}, test)
		}, nil, []byte("# T"), sitediag.WebScrapeOptions{Format: sitediag.ScrapeFormats{"markdown"}, FileOutput: sitediag.On}},
		{"mixedcontent", func() (*response, error) {
			return h.mixedContent(ctx, &sitediag.MixedContentResult{Insecure: []string{"http://a/"}, Secure: []string{},
				Items: []sitediag.MixedContentItem{{URL: "http://a/", Type: "image"}}, PageVisit: visit}, test)
		}, &sitediag.MixedContentResult{Insecure: []string{"http://a/"}, Secure: []string{},
			Items: []sitediag.MixedContentItem{{URL: "http://a/", Type: "image"}}}, nil, sitediag.MixedContentOptions{}},
		{"brand", func() (*response, error) {
			return h.brand(ctx, &sitediag.BrandResult{Record: &sitediag.BrandRecord{}, Domain: "site.test", Mode: "standard"}, test)
		}, &sitediag.BrandRecord{}, nil, nil},
		{"lighthouse", func() (*response, error) {
			return h.lighthouse(ctx, &sitediag.LighthouseResult{HTMLReport: []byte("<html>"), JSONReport: []byte("{}"),
				Scores: sitediag.LighthouseScores{Performance: &score}, PageVisit: visit,
				Settings: sitediag.LighthouseOptions{Device: "desktop", FollowRedirect: sitediag.On, Parameters: []string{}}}, test)
		}, nil, []byte("<html>"), sitediag.LighthouseOptions{Device: "desktop", FollowRedirect: sitediag.On, Parameters: []string{}}},
	} {
		t.Run(tc.op, func(t *testing.T) {
			resp, err := tc.respond()
			if err != nil {
				t.Fatal(err)
			}
			if tc.file != nil {
				artifact(t, resp.Data, tc.file)
			} else if got, want := mustJSON(t, resp.Data), mustJSON(t, tc.data); got != want {
				t.Errorf("data %s, want %s", got, want)
			}
			if tc.settings == nil {
				return
			}
			var meta, settings map[string]any
			json.Unmarshal([]byte(mustJSON(t, resp.Meta)), &meta)
			json.Unmarshal([]byte(mustJSON(t, tc.settings)), &settings)
			for k, v := range settings {
				if !reflect.DeepEqual(meta[k], v) {
					t.Errorf("meta.%s = %v, want the setting %v", k, meta[k], v)
				}
			}
			if meta["test"] == nil {
				t.Error("meta has no test")
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
