package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// RequestID gives every request an id, sent as X-Request-Id and as the
// envelope's meta.test.id, and the time it came in (now, time.Now when
// nil), the envelope's timestamp.
func RequestID(now func() time.Time) func(http.Handler) http.Handler {
	if now == nil {
		now = time.Now
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r, ri := withRequestInfo(r, now)
			w.Header().Set("X-Request-Id", ri.id)
			next.ServeHTTP(w, r)
		})
	}
}

// Logging logs one line per request to log (its id, method, path,
// status and duration) and the failures the API answers with a 5xx or a
// refused target.
func Logging(log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			began := time.Now()
			r, ri := withRequestInfo(r, time.Now)
			ri.log = log
			rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
			next.ServeHTTP(rec, r)
			log.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("id", ri.id), slog.String("method", r.Method),
				slog.String("path", r.URL.Path), slog.Int("status", rec.status), slog.Duration("duration", time.Since(began)))
		})
	}
}

// Instrument counts the requests the handler serves in its metrics (see
// Metrics): by route, status and API code, their durations and those
// in flight.
func (h *Handler) Instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		r, ri := withRequestInfo(r, h.now)
		rec, ok := w.(*statusRecorder) // Logging's, when it is right outside
		if !ok {
			rec = &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		}
		h.metrics.inFlight.Inc()
		defer h.metrics.inFlight.Dec()
		next.ServeHTTP(rec, r)
		h.metrics.observe(routeLabel(r.URL.Path, h.served), rec.status, ri.code, time.Since(began))
	})
}

// withRequestInfo returns r with its requestInfo, made now when it has
// none.
func withRequestInfo(r *http.Request, now func() time.Time) (*http.Request, *requestInfo) {
	if ri, ok := r.Context().Value(requestKey{}).(*requestInfo); ok {
		return r, ri
	}
	ri := &requestInfo{id: newTestID(r.URL.Path), start: now()}
	return r.WithContext(context.WithValue(r.Context(), requestKey{}, ri)), ri
}

// statusRecorder remembers the status written through it.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the real writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
