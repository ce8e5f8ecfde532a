// Package openapigen writes the OpenAPI 3.1 description of the Website
// Diagnostics API from the handler's operations table and the Go types
// it names: request bodies, meta, data and the envelopes, with each
// member described by its field's doc comment and constrained by its api
// tag. go generate runs it (through httpapi's tests) into the committed
// file the handler serves; the handler itself never reflects.
package openapigen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/sitediag/sitediag"
)

// Version is the OpenAPI version of the description.
const Version = "3.1.0"

// API is what the description is made from.
type API struct {
	// ModuleDir is the module's root directory and ModulePath its path:
	// the doc comments are read from the source of its packages.
	ModuleDir, ModulePath string
	// Custom are the schemas of the types with a JSON form of their own.
	Custom Custom
	// Renames name the components of types whose own names would clash.
	Renames map[reflect.Type]string
	// Operations are the POST operations, in the API's order.
	Operations []Operation
	// CommonCodes are the error codes every operation can answer;
	// KeyedCodes those of every keyed GET route; ArtifactCodes those of
	// GET /artifacts/{name}.
	CommonCodes, KeyedCodes, ArtifactCodes []sitediag.Code
	// Status is the HTTP status of an error code (the transport's, not
	// the library's).
	Status func(sitediag.Code) int
	// Success and Error are the envelopes' types: the members of
	// Success of an interface type (meta, data…) are each operation's.
	Success, Error reflect.Type
	// Health and ServiceHealth are the bodies of /health and
	// /health/service.
	Health, ServiceHealth reflect.Type
}

// Operation is one POST operation of the API.
type Operation struct {
	// Paths are the paths it answers at, the spec's spelling first.
	Paths   []string
	Summary string
	// Request is the type the request body decodes into; Meta that of
	// meta; Data the types data can have (one of them, for an operation
	// whose data depends on its options).
	Request, Meta reflect.Type
	Data          []reflect.Type
	// Extra are the success envelope's members besides meta and data,
	// with their types; they are optional.
	Extra map[string]reflect.Type
	// Codes are the operation's own error codes, besides CommonCodes.
	Codes []sitediag.Code
}

// The names of the shared components.
const (
	successName = "SuccessEnvelope"
	errorName   = "ErrorEnvelope"
)

// Generate returns the description, indented, its keys in a stable
// order (encoding/json sorts map keys).
func Generate(api API) ([]byte, error) {
	doc, err := build(api)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// build makes the description; reflection's panics on a type it cannot
// describe become the error.
func build(api API) (doc *document, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	s := &Schemas{
		custom: api.Custom, docs: newFieldDocs(api.ModuleDir, api.ModulePath), renames: api.Renames,
		components: map[string]*Schema{}, names: map[componentKey]string{}, owners: map[string]reflect.Type{},
	}
	doc = &document{
		OpenAPI: Version,
		Info: docInfo{
			Title:   "Website Diagnostics API",
			Version: "1",
			Description: "Diagnoses websites, domains and hosts. Every operation is a POST of a JSON object " +
				"with the x-api-key header; a member that is null or absent takes its default, and enumerated options " +
				"are matched in any case.",
			License: docLicense{Name: "Apache-2.0", Identifier: "Apache-2.0"},
		},
		Security: []map[string][]string{{apiKeyScheme: {}}},
		Tags: []docTag{
			{Name: "operations", Description: "Diagnoses of a website, domain or host."},
			{Name: "service", Description: "The service's own health, artifacts and description."},
		},
		Paths: map[string]docPath{},
		Components: docComponents{
			Schemas:         s.components,
			SecuritySchemes: map[string]docSecurityScheme{apiKeyScheme: {Type: "apiKey", In: "header", Name: "x-api-key"}},
		},
	}
	s.envelopes(api.Success, api.Error)
	for _, op := range api.Operations {
		envelope := successEnvelope(s, op)
		for i, path := range op.Paths {
			d := describe(s, op, api, envelope)
			d.OperationID = operationID(path)
			if i > 0 {
				d.Summary += " (another spelling of " + op.Paths[0] + ")"
			}
			doc.Paths[path] = docPath{"post": d}
		}
	}
	for path, op := range serviceRoutes(s, api) {
		p := docPath{"get": op}
		head := *op
		head.OperationID += "Head"
		head.Summary += " (headers only)"
		head.Responses = map[string]*docResponse{}
		for status, r := range op.Responses {
			head.Responses[status] = &docResponse{Description: r.Description, Headers: r.Headers}
		}
		p["head"] = &head
		doc.Paths[path] = p
	}
	s.dropInputSuffixes(doc)
	return doc, nil
}

// envelopes adds the shared components of the envelopes: the success
// envelope without its per-operation members (those of an interface
// type), and the error envelope.
func (s *Schemas) envelopes(success, failure reflect.Type) {
	name := s.component(success, false)
	env := s.components[name]
	delete(s.components, name)
	for f := range success.Fields() {
		if f.Type.Kind() == reflect.Interface {
			member, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			delete(env.Properties, member)
			env.Required = slices.DeleteFunc(env.Required, func(r string) bool { return r == member })
		}
	}
	env.AdditionalProperties = nil // each operation's members join it
	env.Properties["apiStatus"].Enum = []any{"success"}
	env.Properties["apiCode"].Enum = []any{http.StatusOK}
	s.components[successName] = env
	s.names[componentKey{success, false}] = successName

	name = s.component(failure, false)
	env = s.components[name]
	delete(s.components, name)
	env.AdditionalProperties = nil // each status narrows it
	env.Properties["apiStatus"].Enum = []any{"failure"}
	s.components[errorName] = env
	s.names[componentKey{failure, false}] = errorName
}

// successEnvelope adds the component of op's success envelope, named
// after its path (/up: UpSuccess; generators name their own response
// wrappers …Response): the shared SuccessEnvelope with op's
// meta, data and extra members, and returns a reference to it.
func successEnvelope(s *Schemas, op Operation) *Schema {
	var data *Schema
	if len(op.Data) == 1 {
		data = s.Of(op.Data[0])
	} else {
		data = &Schema{}
		for _, t := range op.Data {
			data.AnyOf = append(data.AnyOf, s.Of(t))
		}
	}
	own := &Schema{
		Type: "object", Required: []string{"meta", "data"},
		Properties: map[string]*Schema{"meta": s.Of(op.Meta), "data": data},
	}
	for _, name := range slices.Sorted(maps.Keys(op.Extra)) {
		own.Properties[name] = s.Of(op.Extra[name])
	}
	id := operationID(op.Paths[0])
	return s.Add(strings.ToUpper(id[:1])+id[1:]+"Success", &Schema{AllOf: []*Schema{ref(successName), own}})
}

// describe is the description of one operation at one of its paths,
// envelope the reference to its success envelope.
func describe(s *Schemas, op Operation, api API, envelope *Schema) *docOperation {
	responses := errorResponses(api.Status, slices.Concat(api.CommonCodes, op.Codes))
	responses["200"] = jsonResponse("The diagnosis.", envelope)
	return &docOperation{
		Summary:   op.Summary,
		Tags:      []string{"operations"},
		Responses: responses,
		RequestBody: &docRequestBody{Required: true, Content: map[string]docMedia{
			"application/json": {Schema: requestBody(s, op)},
		}},
	}
}

// requestBody is the schema of op's request body, with url required: a
// component named after the options type it embeds when its type has no
// name of its own (url and ScreenshotOptions: ScreenshotRequest).
func requestBody(s *Schemas, op Operation) *Schema {
	p := s.of(op.Request, true)
	if p.Ref == "" {
		name := operationID(op.Paths[0])
		for f := range op.Request.Fields() {
			if f.Anonymous {
				name = strings.TrimSuffix(f.Type.Name(), "Options")
			}
		}
		p = s.Add(strings.ToUpper(name[:1])+name[1:]+"Request", p)
	}
	return requireURL(s, p)
}

// requireURL makes url a required member of the request body p.
func requireURL(s *Schemas, p *Schema) *Schema {
	obj := p
	if p.Ref != "" {
		obj = s.components[strings.TrimPrefix(p.Ref, "#/components/schemas/")]
	}
	if _, ok := obj.Properties["url"]; !ok {
		panic("openapigen: a request body without url")
	}
	if !slices.Contains(obj.Required, "url") {
		obj.Required = append(obj.Required, "url")
	}
	return p
}

// serviceRoutes describes the GET routes besides the operations.
func serviceRoutes(s *Schemas, api API) map[string]*docOperation {
	artifact := &docOperation{
		OperationID: "getArtifact", Summary: "An artifact (screenshot, PDF, report) by the name an operation returned.",
		Tags: []string{"service"}, Security: []map[string][]string{},
		Parameters: []docParameter{{Name: "name", In: "path", Required: true, Schema: &Schema{Type: "string"}}},
		Responses:  errorResponses(api.Status, api.ArtifactCodes),
	}
	artifact.Responses["200"] = &docResponse{Description: "The artifact.", Headers: requestIDHeader(),
		Content: map[string]docMedia{"*/*": {Schema: &Schema{}}}}
	artifact.Responses["206"] = &docResponse{Description: "The ranges a Range header asked for.", Headers: requestIDHeader(),
		Content: map[string]docMedia{"*/*": {Schema: &Schema{}}}}
	artifact.Responses["304"] = &docResponse{Description: "Not modified since If-Modified-Since.", Headers: requestIDHeader()}
	artifact.Responses["412"] = &docResponse{Description: "Modified since If-Unmodified-Since.", Headers: requestIDHeader()}
	artifact.Responses["416"] = &docResponse{Description: "No range of the Range header is in the artifact.", Headers: requestIDHeader(),
		Content: map[string]docMedia{"text/plain": {Schema: &Schema{Type: "string"}}}}
	artifact.Responses["302"] = &docResponse{Description: "A pre-signed URL of the artifact in its bucket.",
		Headers: map[string]*docHeader{"Location": {Description: "the pre-signed URL", Required: true, Schema: &Schema{Type: "string", Format: "uri"}}}}
	openapi := &docOperation{
		OperationID: "getOpenAPI", Summary: "This description.", Tags: []string{"service"}, Security: []map[string][]string{},
		Responses: map[string]*docResponse{"200": jsonResponse("The OpenAPI description.", &Schema{Type: "object"})},
	}
	livez := &docOperation{
		OperationID: "getLivez", Summary: "Whether the process serves requests, without a key.", Tags: []string{"service"},
		Security: []map[string][]string{},
		Responses: map[string]*docResponse{"200": {Description: "ok", Headers: requestIDHeader(),
			Content: map[string]docMedia{"text/plain": {Schema: &Schema{Type: "string"}}}}},
	}
	keyed := func(id, summary, description string, body reflect.Type) *docOperation {
		op := &docOperation{OperationID: id, Summary: summary, Tags: []string{"service"}, Responses: errorResponses(api.Status, api.KeyedCodes)}
		op.Responses["200"] = jsonResponse(description, s.Of(body))
		return op
	}
	return map[string]*docOperation{
		"/health":           keyed("getHealth", "Whether the API answers.", "The API is up.", api.Health),
		"/health/service":   keyed("getServiceHealth", "The state of each dependency.", "Each service's status; 200 whatever they say.", api.ServiceHealth),
		"/artifacts/{name}": artifact,
		"/openapi.json":     openapi,
		"/livez":            livez,
	}
}

// errorResponses are the error responses of codes, by status: the error
// envelope, its apiCode the status and its message one of the codes.
func errorResponses(status func(sitediag.Code) int, codes []sitediag.Code) map[string]*docResponse {
	byStatus := map[int][]any{}
	for _, c := range codes {
		if !slices.Contains(byStatus[status(c)], any(string(c))) {
			byStatus[status(c)] = append(byStatus[status(c)], string(c))
		}
	}
	out := map[string]*docResponse{}
	for status, codes := range byStatus {
		body := &Schema{AllOf: []*Schema{ref(errorName), {
			Type: "object",
			Properties: map[string]*Schema{
				"apiCode": {Type: "integer", Enum: []any{status}},
				"message": {Type: "string", Enum: codes},
			},
		}}}
		r := jsonResponse(http.StatusText(status)+".", body)
		switch status {
		case http.StatusUnauthorized:
			r.Headers["WWW-Authenticate"] = &docHeader{Description: "the key scheme", Required: true, Schema: &Schema{Type: "string"}}
		case http.StatusTooManyRequests, http.StatusServiceUnavailable:
			r.Headers["Retry-After"] = &docHeader{Description: "seconds to wait before trying again (RATE_LIMITED, BUSY)",
				Schema: &Schema{Type: "string", Format: "integer"}}
		}
		out[strconv.Itoa(status)] = r
	}
	return out
}

// jsonResponse is a JSON response with the X-Request-Id header.
func jsonResponse(description string, body *Schema) *docResponse {
	return &docResponse{Description: description, Headers: requestIDHeader(),
		Content: map[string]docMedia{"application/json": {Schema: body}}}
}

func requestIDHeader() map[string]*docHeader {
	return map[string]*docHeader{"X-Request-Id": {Description: "the request's id, meta.test.id of a success", Required: true,
		Schema: &Schema{Type: "string"}}}
}

// operationID is a path's operation id: /web-scraping is webScraping.
func operationID(path string) string {
	out := []byte{}
	upper := false
	for _, c := range []byte(path[1:]) {
		switch {
		case c == '-':
			upper = true
		case upper && 'a' <= c && c <= 'z':
			out = append(out, c-'a'+'A')
			upper = false
		default:
			out = append(out, c)
		}
	}
	return string(out)
}

// dropInputSuffixes renames each request-form component (…Input) whose
// type has no response-form component to the type's own name: the
// suffix only tells the two forms of one type apart.
func (s *Schemas) dropInputSuffixes(doc *document) {
	renamed := map[string]string{}
	for key, name := range s.names {
		if !key.request {
			continue
		}
		if _, ok := s.names[componentKey{key.t, false}]; ok {
			continue
		}
		short := strings.TrimSuffix(name, "Input")
		if _, taken := s.components[short]; taken {
			continue
		}
		s.components[short] = s.components[name]
		delete(s.components, name)
		renamed["#/components/schemas/"+name] = "#/components/schemas/" + short
	}
	seen := map[*Schema]bool{}
	var walk func(p *Schema)
	walk = func(p *Schema) {
		if p == nil || seen[p] {
			return
		}
		seen[p] = true
		if to, ok := renamed[p.Ref]; ok {
			p.Ref = to
		}
		walk(p.Items)
		for _, c := range p.Properties {
			walk(c)
		}
		if a, ok := p.AdditionalProperties.(*Schema); ok {
			walk(a)
		}
		for _, c := range slices.Concat(p.AllOf, p.AnyOf) {
			walk(c)
		}
	}
	for _, c := range s.components {
		walk(c)
	}
	for _, item := range doc.Paths {
		for _, op := range item {
			if op.RequestBody != nil {
				walk(op.RequestBody.Content["application/json"].Schema)
			}
			for _, r := range op.Responses {
				for _, m := range r.Content {
					walk(m.Schema)
				}
			}
		}
	}
}
