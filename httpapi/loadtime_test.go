package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/apitest"
)

func TestLoadTime(t *testing.T) {
	api := newAPI(t, apitest.Options{})
	page := strings.Repeat("<p>hello</p>", 1000)
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Set-Cookie"] = []string{"a=1", "b=2"}
		w.Header()["X-Multi"] = []string{"one", "two"}
		w.Header().Set("Content-Type", "text/html")
		time.Sleep(5 * time.Millisecond)
		w.Write([]byte(page))
	})
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(5 * time.Millisecond)
		http.Redirect(w, r, "/page", http.StatusMovedPermanently)
	})
	srv := httptest.NewUnstartedServer(mux)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()

	for _, tc := range []struct {
		name     string
		body     map[string]any
		redirect bool
	}{
		{"one request", map[string]any{"url": siteURL(srv, "/page")}, false},
		{"redirect followed", map[string]any{"url": siteURL(srv, "/old"), "followRedirect": true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := api.Post(t, "/loadtime", tc.body)
			meta, raw := resp.WantSuccess(t)
			if resp.Envelope["message"] != "Site is reachable." {
				t.Errorf("message: got %v", resp.Envelope["message"])
			}
			if meta["redirectedURL"] != siteURL(srv, "/page") || meta["followRedirect"] != tc.redirect {
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
			if network["protocol"] != "HTTP/2.0" || network["remoteIp"] != "127.0.0.1" || num(t, network, "bytesRead") != float64(len(page)) {
				t.Errorf("network: got %v, want HTTP/2.0 from 127.0.0.1, %d bytes", network, len(page))
			}
			headers := data["headers"].(map[string]any)
			if headers["set-cookie"] != "a=1\nb=2" || headers["x-multi"] != "one, two" || headers["content-type"] != "text/html" {
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
