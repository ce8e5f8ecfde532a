package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitest"
)

// TestHTTPProbeErrors checks every documented error of the HTTP probes.
func TestHTTPProbeErrors(t *testing.T) {
	dead := deadPort(t)
	api := newAPI(t, apitest.Options{Config: sitediag.Config{
		Proxies: map[string]*url.URL{"xx": {Scheme: "http", Host: "127.0.0.1:" + dead}},
	}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/inside":
			http.Redirect(w, r, "http://private.test/", http.StatusFound)
		default:
			w.Write([]byte("<a href=/>home</a>"))
		}
	}))
	defer srv.Close()

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
		{"wrong type", map[string]any{"url": siteURL(srv, "/"), "followRedirect": "yes"}, 400, sitediag.CodeInvalidParameters},
		{"unknown field", map[string]any{"url": siteURL(srv, "/"), "depth": 2}, 400, sitediag.CodeInvalidParameters},
		{"unknown proxy country", map[string]any{"url": siteURL(srv, "/"), "proxyCountry": "zz"}, 400, sitediag.CodeProxyCountryUnsupported},
		{"refused target", map[string]any{"url": "http://private.test/"}, 403, sitediag.CodeTargetNotAllowed},
		{"refused redirect", map[string]any{"url": siteURL(srv, "/inside"), "followRedirect": true}, 403, sitediag.CodeTargetNotAllowed},
		{"connection refused", map[string]any{"url": "http://site.test:" + dead + "/"}, 422, sitediag.CodeUnableToConnect},
		{"not resolved", map[string]any{"url": "http://nowhere.test/"}, 422, sitediag.CodeUnableToConnect},
		{"redirect loop", map[string]any{"url": siteURL(srv, "/loop"), "followRedirect": true}, 422, sitediag.CodeUnableToConnect},
		{"proxy down", map[string]any{"url": siteURL(srv, "/"), "proxyCountry": "xx"}, 500, ""},
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
