package openapicheck_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/sitediag/sitediag/internal/openapicheck"
)

// description is a small OpenAPI 3.1 description: POST /echo takes
// {"kind": "a"|"b"} and answers {"n": integer}; 400 is an error object.
const description = `{
  "openapi": "3.1.0",
  "info": {"title": "t", "version": "1"},
  "paths": {
    "/echo": {"post": {
      "requestBody": {"required": true, "content": {"application/json": {"schema": {
        "type": "object", "additionalProperties": false, "required": ["kind"],
        "properties": {"kind": {"type": "string", "enum": ["a", "b"]}}}}}},
      "responses": {
        "200": {"description": "ok", "content": {"application/json": {"schema": {
          "type": "object", "additionalProperties": false, "required": ["n"],
          "properties": {"n": {"type": "integer"}}}}}},
        "400": {"description": "bad", "content": {"application/json": {"schema": {
          "type": "object", "required": ["message"], "properties": {"message": {"enum": ["INVALID_PARAMETERS"]}}}}}}
      }}}
  }
}`

// recorder is a testing.TB that keeps what Errorf reports.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// api serves the description and answers /echo with status and body.
func api(status int, body string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(description))
	})
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(body))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"message":"NOT_FOUND"}`))
	})
	return mux
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name      string
		path      string
		request   string
		status    int
		response  string
		wantError string // "" when the exchange matches
	}{
		{"match", "/echo", `{"kind":"a"}`, 200, `{"n":1}`, ""},
		{"enum in another case", "/echo", `{"kind":"B"}`, 200, `{"n":1}`, ""},
		{"undescribed member", "/echo", `{"kind":"a"}`, 200, `{"n":1,"extra":true}`, "response does not match"},
		{"missing member", "/echo", `{"kind":"a"}`, 200, `{}`, "response does not match"},
		{"wrong type", "/echo", `{"kind":"a"}`, 200, `{"n":"1"}`, "response does not match"},
		{"undescribed status", "/echo", `{"kind":"a"}`, 500, `{"message":"INTERNAL_ERROR"}`, "response does not match"},
		{"undescribed code", "/echo", `{"kind":"a"}`, 400, `{"message":"OTHER"}`, "response does not match"},
		{"served request outside the description", "/echo", `{"kind":"z"}`, 200, `{"n":1}`, "request the API served"},
		{"refused request", "/echo", `{"kind":"z"}`, 400, `{"message":"INVALID_PARAMETERS"}`, ""},
		{"unknown path answered 404", "/nope", `{}`, 404, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			srv := httptest.NewServer(openapicheck.Wrap(rec, api(c.status, c.response)))
			defer srv.Close()
			resp, err := http.Post(srv.URL+c.path, "application/json", strings.NewReader(c.request))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			srv.Close()
			got := strings.Join(rec.errors, "\n")
			switch {
			case c.wantError == "" && got != "":
				t.Errorf("reported a mismatch: %s", got)
			case c.wantError != "" && !strings.Contains(got, c.wantError):
				t.Errorf("reported %q, want %q", got, c.wantError)
			}
		})
	}
}

func TestLoadRefusesAnInvalidDescription(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"openapi": "3.1.0", "paths": {"/x": {"get": {}}}}`))
	})
	if _, err := openapicheck.Load(h); err == nil {
		t.Fatal("loaded a description without info or responses")
	}
}
