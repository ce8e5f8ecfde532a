// Package openapicheck holds an API handler to the OpenAPI description it
// serves at /openapi.json, in tests: every request it answers as a
// request it could serve, and every response it writes, is validated
// with kin-openapi's openapi3filter, and a mismatch fails the test.
package openapicheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// maxBody is the most of a response body kept for validation; a larger
// body (an artifact) is checked by its headers only.
const maxBody = 8 << 20

// refusedRequests are the codes of requests the API turned away as
// requests (bad or unauthorised): the description need not accept them.
var refusedRequests = map[string]bool{
	"INVALID_URL": true, "INVALID_PARAMETERS": true, "PROXY_COUNTRY_UNSUPPORTED": true,
	"UNAUTHORIZED": true, "NOT_FOUND": true, "METHOD_NOT_ALLOWED": true,
	"PAYLOAD_TOO_LARGE": true, "UNSUPPORTED_MEDIA_TYPE": true, "RATE_LIMITED": true,
}

// Handler wraps an API handler and checks what passes through it.
type Handler struct {
	t    testing.TB
	next http.Handler
	doc  func() (*openapi3.T, error)

	mu sync.Mutex
	// counts are the exchanges checked, by method and described path
	// ("POST /up").
	counts map[string]int
}

// Wrap returns next, checked against the description next serves. Errors
// go to t.
func Wrap(t testing.TB, next http.Handler) *Handler {
	h := &Handler{t: t, next: next, counts: map[string]int{}}
	h.doc = sync.OnceValues(h.load)
	return h
}

// Load fetches and validates the description next serves.
func Load(next http.Handler) (*openapi3.T, error) {
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("GET /openapi.json: %d %s", rec.Code, rec.Body)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(rec.Body.Bytes())
	if err != nil {
		return nil, fmt.Errorf("loading /openapi.json: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("/openapi.json is not a valid description: %w", err)
	}
	return doc, nil
}

func (h *Handler) load() (*openapi3.T, error) { return Load(h.next) }

// ServeHTTP serves r with the wrapped handler, then checks the exchange.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		h.t.Errorf("openapicheck: reading the request: %v", err)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	tee := &teeWriter{ResponseWriter: w, status: http.StatusOK}
	h.next.ServeHTTP(tee, r)
	if r.Method == http.MethodOptions { // CORS preflights are not operations
		return
	}
	if r.Context().Err() != nil { // the client went away: no answer reached anyone
		return
	}
	if err := h.check(r, body, tee); err != nil {
		h.t.Errorf("openapicheck: %s %s → %d: %v\nrequest: %.2000s\nresponse: %.2000s", r.Method, r.URL.Path, tee.status, err, body, tee.body.Bytes())
	}
}

// Counts returns how many exchanges of each described operation ("POST
// /up", "GET /artifacts/{name}") the handler checked.
func (h *Handler) Counts() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.counts)
}

// check validates one exchange.
func (h *Handler) check(r *http.Request, reqBody []byte, resp *teeWriter) error {
	doc, err := h.doc()
	if err != nil {
		return err
	}
	code := errorCode(resp)
	path := templatePath(doc, r.URL.Path)
	item := doc.Paths.Value(path)
	var op *openapi3.Operation
	if item != nil {
		op = item.GetOperation(r.Method)
	}
	if op == nil {
		if code != "NOT_FOUND" && code != "METHOD_NOT_ALLOWED" {
			return fmt.Errorf("not in the description, yet answered %q", code)
		}
		return nil
	}
	h.mu.Lock()
	h.counts[r.Method+" "+path]++
	h.mu.Unlock()
	route := &routers.Route{Spec: doc, Path: path, PathItem: item, Method: r.Method, Operation: op}
	req := r.Clone(context.Background())
	req.Body = io.NopCloser(bytes.NewReader(canonicalBody(op, reqBody)))
	in := &openapi3filter.RequestValidationInput{
		Request: req, Route: route, PathParams: pathParams(route.Path, r.URL.Path),
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, SkipSettingDefaults: true},
	}
	if !refusedRequests[code] {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			return fmt.Errorf("request the API served does not match the description: %w", err)
		}
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: resp.status, Header: resp.Header(),
		Body:    io.NopCloser(bytes.NewReader(resp.body.Bytes())),
		Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}
	if r.Method == http.MethodHead || resp.overflow || !strings.HasPrefix(resp.Header().Get("Content-Type"), "application/json") {
		out.Options.ExcludeResponseBody = true
	}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		return fmt.Errorf("response does not match the description: %w", err)
	}
	return nil
}

// errorCode is the message of an error envelope, "" for anything else.
func errorCode(resp *teeWriter) string {
	if resp.status < 400 || resp.overflow {
		return ""
	}
	var env struct{ Message string }
	json.Unmarshal(resp.body.Bytes(), &env)
	return env.Message
}

// templatePath is the description's path template that path matches.
func templatePath(doc *openapi3.T, path string) string {
	if doc.Paths.Value(path) != nil {
		return path
	}
	for tmpl := range doc.Paths.Map() {
		if pathParams(tmpl, path) != nil {
			return tmpl
		}
	}
	return path
}

// pathParams matches path against a template (/artifacts/{name}) and
// returns its parameters, nil when it does not match.
func pathParams(tmpl, path string) map[string]string {
	ts, ps := strings.Split(tmpl, "/"), strings.Split(path, "/")
	if len(ts) != len(ps) {
		return nil
	}
	params := map[string]string{}
	for i, seg := range ts {
		switch {
		case strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}"):
			params[seg[1:len(seg)-1]] = ps[i]
		case seg != ps[i]:
			return nil
		}
	}
	return params
}

// canonicalBody rewrites each string of a JSON request body that
// matches an enum of the operation's schema in another case to the
// enum's spelling: the API matches enumerated options in any case, and
// the description lists their canonical spellings.
func canonicalBody(op *openapi3.Operation, body []byte) []byte {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return body
	}
	media := op.RequestBody.Value.Content.Get("application/json")
	var v any
	if media == nil || media.Schema == nil || json.Unmarshal(body, &v) != nil {
		return body
	}
	out, err := json.Marshal(canonical(media.Schema.Value, v))
	if err != nil {
		return body
	}
	return out
}

func canonical(s *openapi3.Schema, v any) any {
	if s == nil {
		return v
	}
	for _, alt := range s.AnyOf {
		v = canonical(alt.Value, v)
	}
	switch x := v.(type) {
	case string:
		for _, e := range s.Enum {
			if es, ok := e.(string); ok && strings.EqualFold(es, x) {
				return es
			}
		}
	case []any:
		if s.Items != nil {
			for i := range x {
				x[i] = canonical(s.Items.Value, x[i])
			}
		}
	case map[string]any:
		for k, p := range s.Properties {
			if pv, ok := x[k]; ok {
				x[k] = canonical(p.Value, pv)
			}
		}
	}
	return v
}

// teeWriter passes a response through and keeps its status and body.
type teeWriter struct {
	http.ResponseWriter
	status   int
	body     bytes.Buffer
	overflow bool
}

func (w *teeWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

func (w *teeWriter) Write(b []byte) (int, error) {
	if w.body.Len()+len(b) > maxBody {
		w.overflow = true
	} else if !w.overflow {
		w.body.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
