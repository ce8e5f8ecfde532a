package httpapi

import (
	"bytes"
	_ "embed" // the description
	"encoding/json"
	"maps"
	"net/http"

	"github.com/julienschmidt/httprouter"
)

//go:generate go test . -run ^TestOpenAPIFile$ -update-openapi

// OpenAPIVersion is the OpenAPI version of the description the handler
// serves at GET /openapi.json.
const OpenAPIVersion = "3.1.0"

// openAPIFile is the description, generated from the operations table
// and the types it names (internal/openapigen) by go generate; a test
// fails when it is out of date.
//
//go:embed openapi.json
var openAPIFile []byte

// OpenAPI returns the OpenAPI 3.1 description of the API the handler
// serves (without servers, which GET /openapi.json adds): to generate
// a client offline, or to read the operations' members and their
// descriptions, as the command-line tool does for its help.
func OpenAPI() []byte { return bytes.Clone(openAPIFile) }

// openAPIMembers are openAPIFile's top-level members, to which the
// handler adds servers.
func openAPIMembers() map[string]json.RawMessage {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(openAPIFile, &members); err != nil {
		panic("httpapi: the embedded openapi.json: " + err.Error())
	}
	return members
}

// openAPI serves the description, with the server the request reached.
func (h *Handler) openAPI(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	members := maps.Clone(h.description())
	members["servers"], _ = json.Marshal([]map[string]string{{"url": requestInfoOf(r.Context()).base}})
	body, err := json.Marshal(members)
	if err != nil {
		writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}
