package httpapi

import (
	"bytes"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/openapigen"
	"github.com/sitediag/sitediag/net/httpprobe"
	"github.com/sitediag/sitediag/net/mtr"
)

var updateOpenAPI = flag.Bool("update-openapi", false, "rewrite openapi.json (go generate runs the test with it)")

// TestOpenAPIFile generates the description from the operations table
// and fails when the committed openapi.json, which the handler serves,
// differs; with -update it rewrites the file.
func TestOpenAPIFile(t *testing.T) {
	got, err := openapigen.Generate(describedAPI())
	if err != nil {
		t.Fatal(err)
	}
	if *updateOpenAPI {
		if err := os.WriteFile("openapi.json", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(got, openAPIFile) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(openAPIFile), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("openapi.json is out of date (run go generate ./httpapi); line %d is\n%s\nand would be\n%s", i+1, wl[i], gl[i])
			}
		}
		t.Fatalf("openapi.json is out of date (run go generate ./httpapi): %d lines, would be %d", len(wl), len(gl))
	}
}

// commonCodes are the error codes every operation can answer.
var commonCodes = []sitediag.Code{
	sitediag.CodeInvalidURL, sitediag.CodeInvalidParameters, CodeUnauthorized,
	sitediag.CodeTargetNotAllowed, CodePayloadTooLarge, CodeUnsupportedMediaType,
	sitediag.CodeUnableToConnect, CodeRateLimited, sitediag.CodeInternal,
}

// keyedCodes are the error codes of every keyed route.
var keyedCodes = []sitediag.Code{CodeUnauthorized, CodeRateLimited, sitediag.CodeInternal}

// describedAPI is what the description is made from: the operations
// table and the handler's envelopes.
func describedAPI() openapigen.API {
	api := openapigen.API{
		ModuleDir:   "..",
		ModulePath:  reflect.TypeFor[sitediag.Code]().PkgPath(),
		Custom:      customSchemas,
		Renames:     renames,
		CommonCodes: commonCodes, KeyedCodes: keyedCodes, ArtifactCodes: []sitediag.Code{CodeNotFound, sitediag.CodeInternal},
		Status:  Status,
		Success: typeOf[successEnvelope](), Error: typeOf[errorEnvelope](),
		Health: typeOf[healthBody](), ServiceHealth: typeOf[serviceHealthBody](),
	}
	for _, ep := range (&Handler{}).endpoints() {
		api.Operations = append(api.Operations, openapigen.Operation{
			Paths: ep.paths, Summary: ep.doc.summary, Request: ep.request,
			Meta: ep.doc.meta, Data: ep.doc.data, Extra: ep.doc.extra, Codes: ep.doc.codes,
		})
	}
	return api
}

// renames name the components of the types whose own names clash.
var renames = map[reflect.Type]string{
	typeOf[httpprobe.Hop](): "RedirectHop",
	typeOf[mtr.Hop]():       "RouteHop",
}

// customSchemas are the types whose JSON form is their own.
var customSchemas = openapigen.Custom{
	typeOf[sitediag.Toggle](): func(*openapigen.Schemas, bool) *openapigen.Schema {
		return &openapigen.Schema{Type: "boolean"}
	},
	// One format or a list of them is read; a list is written.
	typeOf[sitediag.ScrapeFormats](): func(s *openapigen.Schemas, request bool) *openapigen.Schema {
		format := s.Add("ScrapeFormat", &openapigen.Schema{Type: "string"})
		list := &openapigen.Schema{Type: "array", Items: format, UniqueItems: true}
		if !request {
			return list
		}
		return &openapigen.Schema{AnyOf: []*openapigen.Schema{format, list}}
	},
	typeOf[dns.Records](): func(s *openapigen.Schemas, _ bool) *openapigen.Schema {
		props := map[string]*openapigen.Schema{}
		for _, t := range dns.RecordTypes() {
			// Every queried type is an array, never null; SOA an
			// object, left out when there is none.
			props[t] = s.Of(fieldOf[dns.Records](t).Elem())
			if t != "SOA" {
				props[t] = &openapigen.Schema{Type: "array", Items: props[t]}
			}
		}
		return &openapigen.Schema{Type: "object", Properties: props, AdditionalProperties: false,
			Description: "the records of each queried type, keyed by type"}
	},
}
