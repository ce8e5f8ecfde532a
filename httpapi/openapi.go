package httpapi

import (
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"

	"github.com/julienschmidt/httprouter"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/content"
	"github.com/sitediag/sitediag/dns"
)

// OpenAPIVersion is the OpenAPI version of the description the handler
// serves at GET /openapi.json.
const OpenAPIVersion = "3.1.0"

// operationDoc is what the description says of an operation besides its
// request body, which is the handler's request type.
type operationDoc struct {
	summary string
	// meta is the type of meta; data the types data can have (one of
	// them, for an operation whose data depends on its options).
	meta reflect.Type
	data []reflect.Type
	// extra are the envelope's members besides meta and data, such as
	// /brokenlink's summary, with their types; they are optional.
	extra map[string]reflect.Type
	// codes are the operation's own error codes, besides commonCodes.
	codes []sitediag.Code
}

// commonCodes are the error codes every operation can answer.
var commonCodes = []sitediag.Code{
	sitediag.CodeInvalidURL, sitediag.CodeInvalidParameters, CodeUnauthorized,
	sitediag.CodeTargetNotAllowed, CodePayloadTooLarge, CodeUnsupportedMediaType,
	sitediag.CodeUnableToConnect, CodeRateLimited, sitediag.CodeInternal,
}

// keyedCodes are the error codes of every keyed route.
var keyedCodes = []sitediag.Code{CodeUnauthorized, CodeRateLimited, sitediag.CodeInternal}

// typeOf is T's reflect.Type.
func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// fieldOf is the type of T's field name, so that the description names
// a result's member rather than repeating its type.
func fieldOf[T any](name string) reflect.Type {
	f, ok := reflect.TypeFor[T]().FieldByName(name)
	if !ok {
		panic("httpapi: " + reflect.TypeFor[T]().String() + " has no field " + name)
	}
	return f.Type
}

// customSchemas are the types whose JSON form is their own.
var customSchemas = schemaFor{
	typeOf[sitediag.Toggle](): func(*schemaSet) *schema {
		return &schema{Type: []string{"boolean", "null"}, Description: "null or absent means the operation's default"}
	},
	typeOf[formatList](): func(s *schemaSet) *schema {
		format := &schema{Type: "string", Enum: scrapeFormats()}
		return &schema{AnyOf: []*schema{format, {Type: "array", Items: format, UniqueItems: true, MaxItems: ptr(sitediag.MaxFormats)}}}
	},
	typeOf[dns.Records](): func(s *schemaSet) *schema {
		props := map[string]*schema{}
		for _, t := range dns.RecordTypes() {
			// Every queried type is an array, never null; SOA an
			// object, left out when there is none.
			props[t] = s.of(fieldOf[dns.Records](t).Elem())
			if t != "SOA" {
				props[t] = &schema{Type: "array", Items: props[t]}
			}
		}
		return &schema{Type: "object", Properties: props, AdditionalProperties: false,
			Description: "the records of each queried type, keyed by type"}
	},
}

// scrapeFormats are /web-scraping's formats, for the description.
func scrapeFormats() []any {
	var out []any
	for _, f := range content.Formats() {
		out = append(out, string(f))
	}
	return out
}

// document is an OpenAPI description.
type document struct {
	OpenAPI    string                `json:"openapi"`
	Info       docInfo               `json:"info"`
	Servers    []docServer           `json:"servers"`
	Security   []map[string][]string `json:"security"`
	Tags       []docTag              `json:"tags"`
	Paths      map[string]docPath    `json:"paths"`
	Components docComponents         `json:"components"`
}

type docInfo struct {
	Title       string     `json:"title"`
	Version     string     `json:"version"`
	Description string     `json:"description"`
	License     docLicense `json:"license"`
}

type docLicense struct {
	Name       string `json:"name"`
	Identifier string `json:"identifier"`
}

type docServer struct {
	URL string `json:"url"`
}

type docTag struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

type docPath map[string]*docOperation // by method

type docOperation struct {
	OperationID string                  `json:"operationId"`
	Summary     string                  `json:"summary"`
	Tags        []string                `json:"tags"`
	Security    []map[string][]string   `json:"security,omitempty"`
	Parameters  []docParameter          `json:"parameters,omitempty"`
	RequestBody *docRequestBody         `json:"requestBody,omitempty"`
	Responses   map[string]*docResponse `json:"responses"`
}

type docParameter struct {
	Name     string  `json:"name"`
	In       string  `json:"in"`
	Required bool    `json:"required"`
	Schema   *schema `json:"schema"`
}

type docRequestBody struct {
	Required bool                `json:"required"`
	Content  map[string]docMedia `json:"content"`
}

type docMedia struct {
	Schema *schema `json:"schema"`
}

type docResponse struct {
	Description string                `json:"description"`
	Headers     map[string]*docHeader `json:"headers,omitempty"`
	Content     map[string]docMedia   `json:"content,omitempty"`
}

type docHeader struct {
	Description string  `json:"description"`
	Required    bool    `json:"required,omitempty"`
	Schema      *schema `json:"schema"`
}

type docComponents struct {
	Schemas         map[string]*schema           `json:"schemas"`
	SecuritySchemes map[string]docSecurityScheme `json:"securitySchemes"`
}

type docSecurityScheme struct {
	Type string `json:"type"`
	In   string `json:"in"`
	Name string `json:"name"`
}

// apiKeyScheme is the security scheme of the x-api-key header.
const apiKeyScheme = "apiKey"

// describe builds the description of the routes h serves.
func (h *Handler) describe() *document {
	schemas := newSchemaSet(customSchemas)

	doc := &document{
		OpenAPI: OpenAPIVersion,
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
			Schemas:         schemas.components,
			SecuritySchemes: map[string]docSecurityScheme{apiKeyScheme: {Type: "apiKey", In: "header", Name: "x-api-key"}},
		},
	}
	for _, ep := range h.endpoints() {
		for i, path := range ep.paths {
			op := ep.describe(schemas)
			op.OperationID = operationID(path)
			if i > 0 {
				op.Summary += " (another spelling of " + ep.paths[0] + ")"
			}
			doc.Paths[path] = docPath{"post": op}
		}
	}
	for path, op := range serviceRoutes(schemas) {
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
	return doc
}

// describe is the description of one operation.
func (ep endpoint) describe(s *schemaSet) *docOperation {
	body := s.requestBody(ep.request)
	body.Required = []string{"url"}
	meta := s.of(ep.doc.meta)
	var data *schema
	if len(ep.doc.data) == 1 {
		data = s.of(ep.doc.data[0])
	} else {
		data = &schema{}
		for _, t := range ep.doc.data {
			data.AnyOf = append(data.AnyOf, s.of(t))
		}
	}
	envelope := &schema{
		Type: "object", AdditionalProperties: false,
		Required: []string{"timestamp", "apiStatus", "apiCode", "meta", "data"},
		Properties: map[string]*schema{
			"timestamp": {Type: "integer", Description: "Unix milliseconds of the request"},
			"apiStatus": {Type: "string", Enum: []any{"success"}},
			"apiCode":   {Type: "integer", Enum: []any{200}},
			"message":   {Type: "string"},
			"meta":      meta,
			"data":      data,
		},
	}
	for _, name := range slices.Sorted(maps.Keys(ep.doc.extra)) {
		envelope.Properties[name] = s.of(ep.doc.extra[name])
	}
	responses := errorResponses(slices.Concat(commonCodes, ep.doc.codes))
	responses["200"] = jsonResponse("The diagnosis.", envelope)
	return &docOperation{
		Summary:   ep.doc.summary,
		Tags:      []string{"operations"},
		Responses: responses,
		RequestBody: &docRequestBody{Required: true, Content: map[string]docMedia{
			"application/json": {Schema: body},
		}},
	}
}

// serviceRoutes describes the GET routes besides the operations.
func serviceRoutes(s *schemaSet) map[string]*docOperation {
	health := s.of(typeOf[healthBody]())
	artifact := &docOperation{
		OperationID: "getArtifact", Summary: "An artifact (screenshot, PDF, report) by the name an operation returned.",
		Tags: []string{"service"}, Security: []map[string][]string{},
		Parameters: []docParameter{{Name: "name", In: "path", Required: true, Schema: &schema{Type: "string"}}},
		Responses:  errorResponses([]sitediag.Code{CodeNotFound, sitediag.CodeInternal}),
	}
	artifact.Responses["200"] = &docResponse{Description: "The artifact.", Headers: requestIDHeader(),
		Content: map[string]docMedia{"*/*": {Schema: &schema{}}}}
	artifact.Responses["206"] = &docResponse{Description: "The ranges a Range header asked for.", Headers: requestIDHeader(),
		Content: map[string]docMedia{"*/*": {Schema: &schema{}}}}
	artifact.Responses["304"] = &docResponse{Description: "Not modified since If-Modified-Since.", Headers: requestIDHeader()}
	artifact.Responses["412"] = &docResponse{Description: "Modified since If-Unmodified-Since.", Headers: requestIDHeader()}
	artifact.Responses["416"] = &docResponse{Description: "No range of the Range header is in the artifact.", Headers: requestIDHeader(),
		Content: map[string]docMedia{"text/plain": {Schema: &schema{Type: "string"}}}}
	artifact.Responses["302"] = &docResponse{Description: "A pre-signed URL of the artifact in its bucket.",
		Headers: map[string]*docHeader{"Location": {Description: "the pre-signed URL", Required: true, Schema: &schema{Type: "string", Format: "uri"}}}}
	openapi := &docOperation{
		OperationID: "getOpenAPI", Summary: "This description.", Tags: []string{"service"}, Security: []map[string][]string{},
		Responses: map[string]*docResponse{"200": jsonResponse("The OpenAPI description.", &schema{Type: "object"})},
	}
	livez := &docOperation{
		OperationID: "getLivez", Summary: "Whether the process serves requests, without a key.", Tags: []string{"service"},
		Security: []map[string][]string{},
		Responses: map[string]*docResponse{"200": {Description: "ok", Headers: requestIDHeader(),
			Content: map[string]docMedia{"text/plain": {Schema: &schema{Type: "string"}}}}},
	}
	keyed := func(id, summary, description string) *docOperation {
		op := &docOperation{OperationID: id, Summary: summary, Tags: []string{"service"}, Responses: errorResponses(keyedCodes)}
		op.Responses["200"] = jsonResponse(description, health)
		return op
	}
	return map[string]*docOperation{
		"/health":           keyed("getHealth", "Whether the API answers.", "The API is up."),
		"/health/service":   keyed("getServiceHealth", "The state of each dependency.", "Each service's status; 200 whatever they say."),
		"/artifacts/{name}": artifact,
		"/openapi.json":     openapi,
		"/livez":            livez,
	}
}

// errorResponses are the error responses of codes, by status.
func errorResponses(codes []sitediag.Code) map[string]*docResponse {
	byStatus := map[int][]any{}
	for _, c := range codes {
		if !slices.Contains(byStatus[Status(c)], any(string(c))) {
			byStatus[Status(c)] = append(byStatus[Status(c)], string(c))
		}
	}
	out := map[string]*docResponse{}
	for status, codes := range byStatus {
		r := jsonResponse(http.StatusText(status)+".", errorEnvelopeSchema(status, codes))
		switch status {
		case http.StatusUnauthorized:
			r.Headers["WWW-Authenticate"] = &docHeader{Description: "the key scheme", Required: true, Schema: &schema{Type: "string"}}
		case http.StatusTooManyRequests, http.StatusServiceUnavailable:
			r.Headers["Retry-After"] = &docHeader{Description: "seconds to wait before trying again (RATE_LIMITED, BUSY)",
				Schema: &schema{Type: "string", Format: "integer"}}
		}
		out[strconv.Itoa(status)] = r
	}
	return out
}

// errorEnvelopeSchema is the error envelope with status and one of codes.
func errorEnvelopeSchema(status int, codes []any) *schema {
	return &schema{
		Type: "object", AdditionalProperties: false,
		Required: []string{"timestamp", "apiStatus", "apiCode", "message", "details"},
		Properties: map[string]*schema{
			"timestamp": {Type: "integer", Description: "Unix milliseconds of the request"},
			"apiStatus": {Type: "string", Enum: []any{"failure"}},
			"apiCode":   {Type: "integer", Enum: []any{status}},
			"message":   {Type: "string", Enum: codes, Description: "the error code"},
			"details":   {Type: "string"},
		},
	}
}

// jsonResponse is a JSON response with the X-Request-Id header.
func jsonResponse(description string, body *schema) *docResponse {
	return &docResponse{Description: description, Headers: requestIDHeader(),
		Content: map[string]docMedia{"application/json": {Schema: body}}}
}

func requestIDHeader() map[string]*docHeader {
	return map[string]*docHeader{"X-Request-Id": {Description: "the request's id, meta.test.id of a success", Required: true,
		Schema: &schema{Type: "string"}}}
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

// openAPI serves the description, with the server the request reached.
func (h *Handler) openAPI(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	doc := *h.description()
	doc.Servers = []docServer{{URL: requestInfoOf(r.Context()).base}}
	body, err := json.Marshal(doc)
	if err != nil {
		writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}
