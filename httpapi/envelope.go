package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/httpapi/middleware"
)

// response is what an operation hands back to be wrapped in the success
// envelope.
type response struct {
	Message string
	Meta    any
	Data    any
	Summary any
	// Inline is /screenshot's inline image (inline: true).
	Inline any
	// Services is /openport's service detection, beside data.
	Services any
}

// successEnvelope is the body of every operation's success.
type successEnvelope struct {
	// Timestamp is when the request came, in Unix milliseconds.
	Timestamp int64 `json:"timestamp"`
	// APIStatus is "success".
	APIStatus string `json:"apiStatus"`
	// APICode is the HTTP status, 200.
	APICode int `json:"apiCode"`
	// Message says something of the diagnosis in words: the page had
	// not finished loading, how many links are broken.
	Message  string `json:"message,omitempty"`
	Meta     any    `json:"meta"`
	Data     any    `json:"data"`
	Summary  any    `json:"summary,omitempty"`
	Inline   any    `json:"inline,omitempty"`
	Services any    `json:"services,omitempty"`
}

// errorEnvelope is the body of every error.
type errorEnvelope struct {
	// Timestamp is when the request came, in Unix milliseconds.
	Timestamp int64 `json:"timestamp"`
	// APIStatus is "failure".
	APIStatus string `json:"apiStatus"`
	// APICode is the HTTP status.
	APICode int `json:"apiCode"`
	// Message is the error code (INVALID_URL, …).
	Message string `json:"message"`
	// Details says what went wrong, for people.
	Details string `json:"details"`
}

// testRecord is meta.test.
type testRecord struct {
	// ID is the request's id, as the X-Request-Id header gives it.
	ID string `json:"id"`
}

func (h *Handler) writeSuccess(w http.ResponseWriter, r *http.Request, resp *response) {
	writeJSON(w, http.StatusOK, successEnvelope{
		Timestamp: requestInfoOf(r.Context()).start.UnixMilli(),
		APIStatus: "success",
		APICode:   http.StatusOK,
		Message:   resp.Message,
		Meta:      resp.Meta,
		Data:      resp.Data,
		Summary:   resp.Summary,
		Inline:    resp.Inline,
		Services:  resp.Services,
	})
}

// writeError is the one place errors become responses. A *sitediag.Error
// shows its code and details; anything else is a 500 whose text stays in
// the log.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	ri := requestInfoOf(r.Context())
	if errors.Is(context.Cause(r.Context()), context.Canceled) {
		// The client went away: whatever the operation made of that is
		// not our failure, and nobody reads the answer. The log and the
		// metrics say 499, as proxies do.
		ri.code = clientClosedRequest
		if ri.log != nil {
			ri.log.Info("client closed the request", "id", requestID(r.Context()), "err", err)
		}
		w.WriteHeader(statusClientClosedRequest)
		return
	}
	var e *sitediag.Error
	if !errors.As(err, &e) {
		e = sitediag.NewError(sitediag.CodeInternal, err, "internal error")
	}
	status := Status(e.Code)
	ri.code = string(e.Code)
	if (status >= 500 || e.Code == sitediag.CodeTargetNotAllowed) && ri.log != nil {
		ri.log.Warn("operation failed", "id", requestID(r.Context()), "code", e.Code, "err", err)
	}
	switch e.Code {
	case CodeUnauthorized:
		w.Header().Set("WWW-Authenticate", `APIKey realm="sitediag", header="x-api-key"`)
	case CodeRateLimited, sitediag.CodeBusy:
		if e.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
		}
	}
	writeJSON(w, status, errorEnvelope{
		Timestamp: requestInfoOf(r.Context()).start.UnixMilli(),
		APIStatus: "failure",
		APICode:   status,
		Message:   string(e.Code),
		Details:   e.Details,
	})
}

// statusClientClosedRequest and clientClosedRequest are the status and
// code a request whose client went away is logged and counted with
// (nginx's 499); they are never sent, as nobody is there to read them.
const (
	statusClientClosedRequest = 499
	clientClosedRequest       = "CLIENT_CLOSED_REQUEST"
)

// refuse answers the middleware's refusals in the API's envelope: 401
// UNAUTHORIZED, 429 RATE_LIMITED with Retry-After.
func refuse(w http.ResponseWriter, r *http.Request, err error) {
	var limited *middleware.RateLimitedError
	if errors.As(err, &limited) {
		writeError(w, r, sitediag.RetryLater(CodeRateLimited, nil, limited.RetryAfter, "rate limit exceeded for this key"))
		return
	}
	writeError(w, r, sitediag.NewError(CodeUnauthorized, nil, "%s", err.Error()))
}

// writeJSON answers with status and v in JSON, or with a 500 when v does
// not encode.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// The encoder writes v in one Write once it is encoded, and nothing
	// when it is not, so the status is sent with the body.
	if err := json.NewEncoder(statusWriter{w, status}).Encode(v); err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"apiStatus":"failure","apiCode":500,"message":"INTERNAL_ERROR","details":"internal error"}` + "\n"))
	}
}

// statusWriter writes the header with its status before the body.
type statusWriter struct {
	w      http.ResponseWriter
	status int
}

func (s statusWriter) Write(body []byte) (int, error) {
	s.w.WriteHeader(s.status)
	return s.w.Write(body)
}

// base36 is the alphabet of test ids.
const base36 = "0123456789abcdefghijklmnopqrstuvwxyz"

// uuidID reports whether the operation at path has UUID test ids, as the
// spec shows for /tlsscan; every other id is 32 base-36 characters.
func uuidID(path string) bool {
	switch path {
	case "/tlsscan":
		return true
	}
	return false
}

// newTestID returns a fresh test id for a request to path: a random
// (version 4) UUID where uuidID says so, else 32 lowercase base-36 characters
// from crypto/rand, drawn without modulo bias.
func newTestID(path string) string {
	if uuidID(path) {
		return newUUID()
	}
	var out [32]byte
	n := 0
	var buf [48]byte
	for n < len(out) {
		rand.Read(buf[:])
		for _, b := range buf {
			if b < 252 && n < len(out) { // 252 = 7*36
				out[n] = base36[b%36]
				n++
			}
		}
	}
	return string(out[:])
}

// newUUID returns a random UUID (RFC 9562 version 4) in its text form.
func newUUID() string {
	var u [16]byte
	rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}
