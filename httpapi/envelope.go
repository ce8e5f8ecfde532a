package httpapi

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/sitediag/sitediag"
)

// response is what an operation hands back to be wrapped in the success
// envelope.
type response struct {
	Message string
	Meta    any
	Data    any
	Summary any
	// Services is /openport's service detection, beside data.
	Services any
}

type successEnvelope struct {
	Timestamp int64  `json:"timestamp"`
	APIStatus string `json:"apiStatus"`
	APICode   int    `json:"apiCode"`
	Message   string `json:"message,omitempty"`
	Meta      any    `json:"meta"`
	Data      any    `json:"data"`
	Summary   any    `json:"summary,omitempty"`
	Services  any    `json:"services,omitempty"`
}

type errorEnvelope struct {
	Timestamp int64  `json:"timestamp"`
	APIStatus string `json:"apiStatus"`
	APICode   int    `json:"apiCode"`
	Message   string `json:"message"`
	Details   string `json:"details"`
}

// testRecord is meta.test.
type testRecord struct {
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
		Services:  resp.Services,
	})
}

// writeError is the one place errors become responses. A *sitediag.Error
// shows its code and details; anything else is a 500 whose text stays in
// the log.
func (h *Handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var e *sitediag.Error
	if !errors.As(err, &e) {
		e = &sitediag.Error{Code: sitediag.CodeInternal, Status: http.StatusInternalServerError, Details: "internal error", Err: err}
	}
	status := e.Status
	if status == 0 {
		status = e.Code.Status()
	}
	if status >= 500 || e.Code == sitediag.CodeTargetNotAllowed {
		h.log.Warn("operation failed", "id", requestID(r.Context()), "code", e.Code, "err", err)
	}
	switch e.Code {
	case sitediag.CodeUnauthorized:
		w.Header().Set("WWW-Authenticate", `APIKey realm="sitediag", header="x-api-key"`)
	case sitediag.CodeRateLimited, sitediag.CodeBusy:
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

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"apiStatus":"failure","apiCode":500,"message":"INTERNAL_ERROR","details":"internal error"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// base36 is the alphabet of test ids.
const base36 = "0123456789abcdefghijklmnopqrstuvwxyz"

// newTestID returns 32 lowercase base-36 characters from crypto/rand,
// drawn without modulo bias.
func newTestID() string {
	out := make([]byte, 0, 32)
	var buf [48]byte
	for len(out) < 32 {
		rand.Read(buf[:])
		for _, b := range buf {
			if b < 252 && len(out) < 32 { // 252 = 7*36
				out = append(out, base36[b%36])
			}
		}
	}
	return string(out)
}
