package httpapi_test

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/httpapi"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/openapicheck"
	"github.com/sitediag/sitediag/internal/testenv"
)

// description fetches /openapi.json without a key and loads it.
func description(t *testing.T, api *apitest.API) (*openapi3.T, []byte) {
	t.Helper()
	r := api.Do(t, http.MethodGet, "/openapi.json", nil, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d %s", r.Status, r.Body)
	}
	doc, err := openapicheck.Load(api.Handler)
	if err != nil {
		t.Fatal(err)
	}
	return doc, r.Body
}

func TestOpenAPIDescription(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	doc, body := description(t, api)
	if doc.OpenAPI != httpapi.OpenAPIVersion {
		t.Errorf("openapi %q, want %q", doc.OpenAPI, httpapi.OpenAPIVersion)
	}
	var served struct{ Servers []struct{ URL string } }
	json.Unmarshal(body, &served)
	if len(served.Servers) != 1 || served.Servers[0].URL != api.Server.URL {
		t.Errorf("servers %+v, want the URL the request reached, %s", served.Servers, api.Server.URL)
	}

	// Every operation of the spec, in both spellings where it has two,
	// is a POST in the description, and every POST it describes is
	// served: an empty body is INVALID_URL, not NOT_FOUND.
	ops := []string{"/metascraping", "/meta-scraping", "/url2pdf", "/brand", "/lighthouse", "/brokenlink", "/tlsscan",
		"/up", "/redirectcheck", "/dnssec", "/dnsrecord", "/ttfb", "/loadtime", "/httpheader", "/httpprotocol",
		"/openport", "/ping", "/mtr", "/screenshot", "/web-scraping", "/webscraping", "/mixedcontent"}
	for _, path := range ops {
		if item := doc.Paths.Value(path); item == nil || item.Post == nil {
			t.Errorf("POST %s is not described", path)
		}
	}
	posts := 0
	for path, item := range doc.Paths.Map() {
		if item.Post == nil {
			continue
		}
		posts++
		op := item.Post
		api.Post(t, path, map[string]any{}).WantError(t, http.StatusBadRequest, sitediag.CodeInvalidURL)
		if op.RequestBody == nil || op.Security != nil {
			t.Errorf("POST %s: want a request body and the document's key requirement", path)
		}
		for _, status := range []int{200, 400, 401, 403, 413, 415, 422, 429, 500} {
			if op.Responses.Status(status) == nil {
				t.Errorf("POST %s: no %d response", path, status)
			}
		}
	}
	if posts != len(ops) {
		t.Errorf("%d POST operations described, want %d", posts, len(ops))
	}
	for _, path := range []string{"/health", "/health/service", "/artifacts/{name}", "/openapi.json", "/livez"} {
		if item := doc.Paths.Value(path); item == nil || item.Get == nil || item.Head == nil {
			t.Errorf("GET and HEAD %s are not described", path)
		}
	}
	if s := doc.Components.SecuritySchemes["apiKey"]; s == nil || s.Value.In != "header" || s.Value.Name != "x-api-key" {
		t.Errorf("security scheme %+v, want the x-api-key header", s)
	}
}

// TestOpenAPIBoundsAreTheLibrarys keeps the description's ranges and
// defaults in step with the constants the library checks against.
func TestOpenAPIBoundsAreTheLibrarys(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	doc, _ := description(t, api)
	property := func(path, name string) *openapi3.Schema {
		t.Helper()
		body := doc.Paths.Value(path).Post.RequestBody.Value.Content.Get("application/json").Schema.Value
		p := body.Properties[name]
		if p == nil {
			t.Fatalf("POST %s has no member %s", path, name)
		}
		if len(p.Value.AnyOf) > 0 { // the range or enum, 0 (the default) or null
			return p.Value.AnyOf[0].Value
		}
		return p.Value
	}
	outer := func(path, name string) *openapi3.Schema {
		body := doc.Paths.Value(path).Post.RequestBody.Value.Content.Get("application/json").Schema.Value
		return body.Properties[name].Value
	}
	cases := []struct {
		path, name string
		min, max   float64
	}{
		{"/screenshot", "viewportWidth", sitediag.MinViewportWidth, sitediag.MaxViewportWidth},
		{"/screenshot", "viewportHeight", sitediag.MinViewportHeight, sitediag.MaxViewportHeight},
		{"/screenshot", "pageHeight", sitediag.MinPageHeight, sitediag.MaxPageHeight},
		{"/screenshot", "quality", sitediag.MinQuality, sitediag.MaxQuality},
		{"/screenshot", "scaleFactor", sitediag.MinScaleFactor, sitediag.MaxScaleFactor},
		{"/screenshot", "delay", 0, sitediag.MaxDelay.Seconds()},
		{"/screenshot", "timeout", sitediag.MinPageTimeout.Seconds(), 0},
		{"/web-scraping", "waitTime", 0, sitediag.MaxWaitTime.Seconds()},
		{"/tlsscan", "probeTimeout", 0, sitediag.MaxProbeTimeout.Seconds()},
		{"/ping", "count", 1, sitediag.MaxPingCount},
		{"/mtr", "count", 1, sitediag.MaxMTRCount},
		{"/mtr", "maxHops", 1, sitediag.MaxMTRHops},
	}
	for _, c := range cases {
		p := property(c.path, c.name)
		if p.Min == nil || *p.Min != c.min || (c.max != 0 && (p.Max == nil || *p.Max != c.max)) {
			t.Errorf("%s %s: range %v–%v, want %v–%v", c.path, c.name, deref(p.Min), deref(p.Max), c.min, c.max)
		}
	}
	if d := outer("/openport", "topPorts").Default; d != float64(sitediag.DefaultTopPorts) {
		t.Errorf("topPorts default %v, want %d", d, sitediag.DefaultTopPorts)
	}
	if d := outer("/url2pdf", "scale").Default; d != 1.0 {
		t.Errorf("scale default %v, want 1", d)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestOpenAPILint lints the description with Redocly CLI, pinned in
// tools/redocly (installed by make test): no error and no warning.
func TestOpenAPILint(t *testing.T) {
	dir, err := filepath.Abs("../tools/redocly")
	if err != nil {
		t.Fatal(err)
	}
	redocly := filepath.Join(dir, "node_modules", ".bin", "redocly")
	_, err = os.Stat(redocly)
	testenv.Need(t, err == nil, "Redocly CLI is not installed (make test installs it in tools/redocly)")
	api := apitest.New(t, apitest.Options{})
	_, body := description(t, api)
	file := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), redocly, "lint", "--config", filepath.Join(dir, "redocly.yaml"), "--format", "json", file)
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var report struct {
		Totals   struct{ Errors, Warnings int }
		Problems []struct {
			RuleID, Severity, Message string
			Location                  []struct{ Pointer string }
		}
	}
	if jerr := json.Unmarshal(out, &report); jerr != nil {
		t.Fatalf("redocly lint: %v, %v\n%s%s", err, jerr, out, stderr.String())
	}
	for _, p := range report.Problems {
		t.Errorf("redocly lint: %s %s: %s %v", p.Severity, p.RuleID, p.Message, p.Location)
	}
	if err != nil || report.Totals.Errors+report.Totals.Warnings > 0 {
		t.Fatalf("redocly lint: %v; %d errors, %d warnings", err, report.Totals.Errors, report.Totals.Warnings)
	}
}
