package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// TestOpenAPIShape holds the served description to what generators
// need: no null in an enum, request bodies whose url is required and a
// plain string and whose required members are never null, the shared
// envelope, error and meta.test components, members described by their
// fields' doc comments, and 0 as a number option's default outside any
// enum.
func TestOpenAPIShape(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	_, body := description(t, api)
	var doc struct {
		Paths      map[string]map[string]json.RawMessage
		Components struct{ Schemas map[string]map[string]any }
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	schemas := doc.Components.Schemas
	resolve := func(s map[string]any) map[string]any {
		if ref, ok := s["$ref"].(string); ok {
			return schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
		}
		return s
	}
	var walk func(where string, s any, visit func(where string, s map[string]any))
	walk = func(where string, s any, visit func(string, map[string]any)) {
		switch v := s.(type) {
		case map[string]any:
			visit(where, v)
			for k, c := range v {
				walk(where+"/"+k, c, visit)
			}
		case []any:
			for i, c := range v {
				walk(fmt.Sprintf("%s/%d", where, i), c, visit)
			}
		}
	}
	walk("", schemas, func(where string, s map[string]any) {
		if enum, ok := s["enum"].([]any); ok && slices.Contains(enum, nil) {
			t.Errorf("%s: null in an enum", where)
		}
	})
	for _, name := range []string{"SuccessEnvelope", "ErrorEnvelope", "TestRecord"} {
		if schemas[name] == nil {
			t.Errorf("no component %s", name)
		}
	}
	// Components are named after their types, not their packages.
	for old, name := range map[string]string{"HttpprobeHeader": "Header", "LinkcheckResult": "Result",
		"PortscanService": "Service", "DnsMX": "MX", "TlsCertificate": "Certificate"} {
		if schemas[old] != nil || schemas[name] == nil {
			t.Errorf("component %s, want %s", old, name)
		}
	}
	allows := func(s map[string]any, kind string) bool {
		switch ty := s["type"].(type) {
		case string:
			return ty == kind
		case []any:
			return slices.Contains(ty, any(kind))
		}
		for _, a := range s["anyOf"].([]any) {
			if a.(map[string]any)["type"] == kind {
				return true
			}
		}
		return false
	}
	for path, item := range doc.Paths {
		var post struct {
			RequestBody struct {
				Content map[string]struct{ Schema map[string]any }
			}
			Responses map[string]struct {
				Content map[string]struct{ Schema map[string]any }
			}
		}
		if item["post"] == nil {
			continue
		}
		json.Unmarshal(item["post"], &post)
		req := resolve(post.RequestBody.Content["application/json"].Schema)
		props, _ := req["properties"].(map[string]any)
		if url, _ := props["url"].(map[string]any); url["type"] != "string" || !slices.Contains(req["required"].([]any), any("url")) {
			t.Errorf("POST %s: url %v, required %v; want a required plain string", path, url, req["required"])
		}
		for _, r := range req["required"].([]any) {
			if allows(props[r.(string)].(map[string]any), "null") {
				t.Errorf("POST %s: required member %s is nullable", path, r)
			}
		}
		for status, resp := range post.Responses {
			s := resolve(resp.Content["application/json"].Schema)
			first := s["allOf"].([]any)[0].(map[string]any)["$ref"]
			want := "#/components/schemas/ErrorEnvelope"
			if status == "200" {
				want = "#/components/schemas/SuccessEnvelope"
				meta := resolve(s["allOf"].([]any)[1].(map[string]any)["properties"].(map[string]any)["meta"].(map[string]any))
				if test := meta["properties"].(map[string]any)["test"].(map[string]any); test["$ref"] != "#/components/schemas/TestRecord" {
					t.Errorf("POST %s: meta.test %v, want TestRecord", path, test)
				}
			}
			if first != want {
				t.Errorf("POST %s %s: allOf starts with %v, want %s", path, status, first, want)
			}
		}
	}

	// A member's description is its field's doc comment, its JSON name
	// first; 0 is a number option's default beside its range or enum.
	screenshot := schemas["ScreenshotRequest"]["properties"].(map[string]any)
	if d, _ := screenshot["blockAds"].(map[string]any)["description"].(string); !strings.HasPrefix(d, "blockAds refuses requests to ad and tracker hosts") {
		t.Errorf("blockAds description %q, want PageOptions.BlockAds's doc comment", d)
	}
	for _, p := range []map[string]any{screenshot["viewportWidth"].(map[string]any), schemas["OpenPortRequest"]["properties"].(map[string]any)["topPorts"].(map[string]any)} {
		alts := p["anyOf"].([]any)
		if enum, _ := alts[0].(map[string]any)["enum"].([]any); slices.Contains(enum, any(0.0)) || alts[1].(map[string]any)["const"] != 0.0 {
			t.Errorf("%v: want the range or enum, then const 0", p)
		}
	}
	services := schemas["ServiceHealthBody"]
	if !slices.Contains(services["required"].([]any), any("services")) || allows(services["properties"].(map[string]any)["services"].(map[string]any), "null") {
		t.Errorf("/health/service: services %v, want required and never null", services)
	}
}
