package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"testing"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/h3test"
)

// The HTTP probes (/ttfb, /httpheader, /httpprotocol, /loadtime and
// /brokenlink), each on the probes' site (newProbeSite).

func TestTTFB(t *testing.T) {
	api, site := newAPI(t, apitest.Options{}), newProbeSite(t)
	for _, tc := range []struct {
		name       string
		body       map[string]any
		follow     bool
		redirected string
	}{
		{"default: no follow", map[string]any{"url": site.url("/old")}, false, site.url("/old")},
		{"follow", map[string]any{"url": site.url("/old"), "followRedirect": true}, true, site.url("/page")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			meta, data := api.Post(t, "/ttfb", tc.body).WantSuccess(t)
			if ms, ok := data.(float64); !ok || ms <= 0 {
				t.Errorf("data: got %v, want a positive number of milliseconds", data)
			}
			if meta["url"] != site.url("/old") || meta["redirectedURL"] != tc.redirected || meta["followRedirect"] != tc.follow {
				t.Errorf("meta: got %v, want url %s, redirectedURL %s, followRedirect %v", meta, site.url("/old"), tc.redirected, tc.follow)
			}
		})
	}
}

func TestHTTPHeader(t *testing.T) {
	api, site := newAPI(t, apitest.Options{}), newProbeSite(t)
	type header struct{ name, value string }
	headersOf := func(t *testing.T, data any) []header {
		t.Helper()
		var out []header
		for _, item := range data.([]any) {
			m := item.(map[string]any)
			if len(m) != 2 {
				t.Errorf("header item %v should have name and value only", m)
			}
			out = append(out, header{m["name"].(string), m["value"].(string)})
		}
		return out
	}
	only := func(hs []header, name string) []header {
		var out []header
		for _, h := range hs {
			if h.name == name {
				out = append(out, h)
			}
		}
		return out
	}

	meta, data := api.Post(t, "/httpheader", map[string]any{"url": site.url("/old"), "followRedirect": true}).WantSuccess(t)
	if meta["url"] != site.url("/old") || meta["redirectedURL"] != site.url("/page") || meta["followRedirect"] != true {
		t.Errorf("meta: got %v", meta)
	}
	hs := headersOf(t, data)
	want := []header{{"set-cookie", "a=1; Path=/"}, {"set-cookie", "b=2"}, {"set-cookie", "c=3; HttpOnly"}}
	if got := only(hs, "set-cookie"); !reflect.DeepEqual(got, want) {
		t.Errorf("set-cookie: got %v, want %v", got, want)
	}
	if got := only(hs, "x-first"); len(got) != 1 || got[0].value != "1" {
		t.Errorf("x-first: got %v", got)
	}

	// Not following (the default), the redirect's own headers.
	meta, data = api.Post(t, "/httpheader", map[string]any{"url": site.url("/old")}).WantSuccess(t)
	if meta["redirectedURL"] != site.url("/old") || meta["followRedirect"] != false {
		t.Errorf("meta: got %v", meta)
	}
	if got := only(headersOf(t, data), "location"); len(got) != 1 || got[0].value != "/page" {
		t.Errorf("location: got %v, want /page", got)
	}
}

func TestHTTPProtocol(t *testing.T) {
	api, h2 := newAPI(t, apitest.Options{}), newProbeSite(t)
	hello := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) })
	h1 := httptest.NewTLSServer(hello)
	t.Cleanup(h1.Close)
	h3 := h3test.Start(t, hello, h3test.Options{})
	h3dead := h3test.Start(t, hello, h3test.Options{DeadUDP: true})
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, siteURL(h3.TCP, "/"), http.StatusFound)
	}))
	t.Cleanup(redirect.Close)

	for _, tc := range []struct {
		name       string
		body       map[string]any
		redirected string
		want       map[string]any
	}{
		{"HTTP/2 over TLS", map[string]any{"url": h2.url("/page")}, h2.url("/page"),
			map[string]any{"http10": true, "http11": true, "http2": true, "http3": false, "http3SupportedVersion": []any{}}},
		{"HTTP/1.1 only", map[string]any{"url": siteURL(h1, "/")}, siteURL(h1, "/"),
			map[string]any{"http10": true, "http11": true, "http2": false, "http3": false, "http3SupportedVersion": []any{}}},
		{"HTTP/3 advertised and served", map[string]any{"url": siteURL(h3.TCP, "/")}, siteURL(h3.TCP, "/"),
			map[string]any{"http10": true, "http11": true, "http2": true, "http3": true, "http3SupportedVersion": []any{"h3"}}},
		{"HTTP/3 advertised on a dead UDP port", map[string]any{"url": siteURL(h3dead.TCP, "/")}, siteURL(h3dead.TCP, "/"),
			map[string]any{"http10": true, "http11": true, "http2": true, "http3": false, "http3SupportedVersion": []any{}}},
		{"redirect followed to HTTP/3", map[string]any{"url": siteURL(redirect, "/"), "followRedirect": true}, siteURL(h3.TCP, "/"),
			map[string]any{"http10": true, "http11": true, "http2": true, "http3": true, "http3SupportedVersion": []any{"h3"}}},
		{"redirect not followed", map[string]any{"url": siteURL(redirect, "/")}, siteURL(redirect, "/"),
			map[string]any{"http10": true, "http11": true, "http2": false, "http3": false, "http3SupportedVersion": []any{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			meta, data := api.Post(t, "/httpprotocol", tc.body).WantSuccess(t)
			if !reflect.DeepEqual(data, tc.want) {
				t.Errorf("data: got %v, want %v", data, tc.want)
			}
			if meta["url"] != tc.body["url"] || meta["redirectedURL"] != tc.redirected {
				t.Errorf("meta: got %v, want url %v, redirectedURL %s", meta, tc.body["url"], tc.redirected)
			}
		})
	}
}

func TestLoadTime(t *testing.T) {
	api, site := newAPI(t, apitest.Options{}), newProbeSite(t)
	for _, tc := range []struct {
		name     string
		body     map[string]any
		redirect bool
	}{
		{"one request", map[string]any{"url": site.url("/page")}, false},
		{"redirect followed", map[string]any{"url": site.url("/old"), "followRedirect": true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := api.Post(t, "/loadtime", tc.body)
			meta, raw := resp.WantSuccess(t)
			if resp.Envelope["message"] != "Site is reachable." {
				t.Errorf("message: got %v", resp.Envelope["message"])
			}
			if meta["redirectedURL"] != site.url("/page") || meta["followRedirect"] != tc.redirect {
				t.Errorf("meta: got %v", meta)
			}
			data := raw.(map[string]any)
			timings := data["timings"].(map[string]any)
			for _, k := range []string{"dns", "connect", "tls", "send", "wait", "total"} {
				if num(t, data, k) < 0 || num(t, data, k) != num(t, timings, k) {
					t.Errorf("%s: got %v and timings.%s %v, want the same non-negative number", k, data[k], k, timings[k])
				}
			}
			for _, k := range []string{"ttfb", "download", "redirectDuration"} {
				if num(t, timings, k) < 0 {
					t.Errorf("timings.%s is negative: %v", k, timings[k])
				}
			}
			ttfb, total, redirect := num(t, timings, "ttfb"), num(t, timings, "total"), num(t, timings, "redirectDuration")
			if ttfb > total {
				t.Errorf("ttfb %v > total %v", ttfb, total)
			}
			if tc.redirect != (redirect > 0) {
				t.Errorf("redirectDuration %v with redirect %v", redirect, tc.redirect)
			}
			// Phases of the final request, plus the redirects, make the
			// time to first byte (each value is rounded to the µs).
			sum := redirect + num(t, data, "dns") + num(t, data, "connect") + num(t, data, "tls") + num(t, data, "send") + num(t, data, "wait")
			if d := sum - ttfb; d > 0.01 || d < -0.01 {
				t.Errorf("redirect+dns+connect+tls+send+wait = %v, want ttfb %v", sum, ttfb)
			}
			if num(t, data, "tls") <= 0 || num(t, data, "dns") <= 0 {
				t.Errorf("tls %v and dns %v should be measured", data["tls"], data["dns"])
			}
			if num(t, data, "statusCode") != 200 || data["reasonPhrase"] != "OK" {
				t.Errorf("status: got %v %v", data["statusCode"], data["reasonPhrase"])
			}
			network := data["network"].(map[string]any)
			if network["protocol"] != "HTTP/2.0" || network["remoteIp"] != "127.0.0.1" || num(t, network, "bytesRead") != float64(len(site.page)) {
				t.Errorf("network: got %v, want HTTP/2.0 from 127.0.0.1, %d bytes", network, len(site.page))
			}
			headers := data["headers"].(map[string]any)
			if headers["set-cookie"] != "a=1; Path=/\nb=2\nc=3; HttpOnly" || headers["x-multi"] != "one, two" || headers["content-type"] != "text/html" {
				t.Errorf("headers: got %v", headers)
			}
			support := data["protocolSupport"].(map[string]any)
			if support["http11"] != true || support["http2"] != true || support["http3"] != false {
				t.Errorf("protocolSupport: got %v", support)
			}
			if v, ok := support["http3SupportedVersion"].([]any); !ok || len(v) != 0 {
				t.Errorf("http3SupportedVersion: got %v, want []", support["http3SupportedVersion"])
			}
		})
	}
}

func TestBrokenLink(t *testing.T) {
	api, site := newAPI(t, apitest.Options{}), newProbeSite(t)
	type item = map[string]any
	withFollow := []any{
		item{"link": site.url("/good"), "status": 200.0},
		item{"link": site.url("/img.png"), "status": 200.0},
		item{"link": site.url("/img@2x.png"), "status": 200.0},
		item{"link": site.url("/gone"), "status": 404.0},
		item{"link": site.url("/private"), "status": 403.0},
		item{"link": site.url("/error"), "status": 500.0},
		item{"link": site.url("/slow"), "status": 0.0, "error": "timed out"},
		item{"link": "http://site.test:" + site.dead + "/", "status": 0.0, "error": "connection refused"},
		item{"link": "http://private.test/", "status": 0.0, "error": "TARGET_NOT_ALLOWED"},
		item{"link": site.url("/moved"), "status": 200.0},
	}

	resp := api.Post(t, "/brokenlink", map[string]any{"url": site.url("/old")})
	meta, data := resp.WantSuccess(t)
	if !reflect.DeepEqual(data, withFollow) {
		t.Errorf("data:\ngot  %v\nwant %v", data, withFollow)
	}
	wantSummary := map[string]any{"total": 10.0, "successful": 4.0, "redirects": 0.0, "broken": 5.0, "serverError": 1.0,
		"forbidden": 1.0, "timedOut": 1.0}
	if !reflect.DeepEqual(resp.Envelope["summary"], wantSummary) {
		t.Errorf("summary: got %v, want %v", resp.Envelope["summary"], wantSummary)
	}
	if resp.Envelope["message"] != "Found 6 broken links out of 10." {
		t.Errorf("message: got %v", resp.Envelope["message"])
	}
	wantMeta := map[string]any{"url": hostOf(site.url("/old")), "proxyCountry": "", "followRedirect": true, "redirectedURL": site.url("/page"),
		"linksFound": 10.0, "test": meta["test"]}
	if !reflect.DeepEqual(meta, wantMeta) {
		t.Errorf("meta: got %v, want %v", meta, wantMeta)
	}

	// Not following: the page itself is a redirect whose body links to
	// /page, and a redirecting link is a redirect.
	resp = api.Post(t, "/brokenlink", map[string]any{"url": site.url("/old"), "followRedirect": false})
	meta, data = resp.WantSuccess(t)
	if want := []any{item{"link": site.url("/page"), "status": 200.0}}; !reflect.DeepEqual(data, want) || meta["followRedirect"] != false {
		t.Errorf("not following: got %v %v, want %v", meta, data, want)
	}
	if resp.Envelope["message"] != "No broken links found." {
		t.Errorf("message: got %v", resp.Envelope["message"])
	}
}

// TestHTTPProbeErrors checks every documented error of the HTTP probes.
func TestHTTPProbeErrors(t *testing.T) {
	site := newProbeSite(t)
	api := newAPI(t, apitest.Options{Config: sitediag.Config{
		Proxies: map[string]*url.URL{"xx": {Scheme: "http", Host: "127.0.0.1:" + site.dead}},
	}})
	failed := map[string]sitediag.Code{
		"/ttfb": sitediag.CodeTTFBFailed, "/loadtime": sitediag.CodeLoadTimeFailed, "/httpheader": sitediag.CodeHTTPHeaderFailed,
		"/httpprotocol": sitediag.CodeHTTPProtocolFailed, "/brokenlink": sitediag.CodeBrokenLinkCheckFailed,
	}
	for _, tc := range []struct {
		name   string
		body   any
		status int
		code   sitediag.Code // "" means the operation's *_FAILED code
	}{
		{"no url", map[string]any{}, 400, sitediag.CodeInvalidURL},
		{"not http", map[string]any{"url": "ftp://site.test/"}, 400, sitediag.CodeInvalidURL},
		{"userinfo", map[string]any{"url": "http://u:p@site.test/"}, 400, sitediag.CodeInvalidURL},
		{"wrong type", map[string]any{"url": site.url("/page"), "followRedirect": "yes"}, 400, sitediag.CodeInvalidParameters},
		{"unknown field", map[string]any{"url": site.url("/page"), "depth": 2}, 400, sitediag.CodeInvalidParameters},
		{"unknown proxy country", map[string]any{"url": site.url("/page"), "proxyCountry": "zz"}, 400, sitediag.CodeProxyCountryUnsupported},
		{"refused target", map[string]any{"url": "http://private.test/"}, 403, sitediag.CodeTargetNotAllowed},
		{"refused redirect", map[string]any{"url": site.url("/inside"), "followRedirect": true}, 403, sitediag.CodeTargetNotAllowed},
		{"connection refused", map[string]any{"url": "http://site.test:" + site.dead + "/"}, 422, sitediag.CodeUnableToConnect},
		{"not resolved", map[string]any{"url": "http://nowhere.test/"}, 422, sitediag.CodeUnableToConnect},
		{"redirect loop", map[string]any{"url": site.url("/loop"), "followRedirect": true}, 422, sitediag.CodeUnableToConnect},
		{"proxy down", map[string]any{"url": site.url("/page"), "proxyCountry": "xx"}, 500, ""},
	} {
		for op, opFailed := range failed {
			t.Run(tc.name+" "+op, func(t *testing.T) {
				code := tc.code
				if code == "" {
					code = opFailed
				}
				api.Post(t, op, tc.body).WantError(t, tc.status, code)
			})
		}
	}
}
