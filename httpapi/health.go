package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/sitediag/sitediag"
)

// healthTimeout bounds the dependency checks of /health/service.
const healthTimeout = 5 * time.Second

// healthBody is what /health answers.
type healthBody struct {
	Timestamp int64  `json:"timestamp"`
	APIStatus string `json:"apiStatus"`
	APICode   int    `json:"apiCode"`
	Message   string `json:"message"`
}

// serviceHealthBody is what /health/service answers: every dependency's
// status, always at least the artifact store's.
type serviceHealthBody struct {
	healthBody
	Services []sitediag.ServiceHealth `json:"services"`
}

func (h *Handler) health(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	writeJSON(w, http.StatusOK, healthBody{
		Timestamp: requestInfoOf(r.Context()).start.UnixMilli(),
		APIStatus: "success",
		APICode:   http.StatusOK,
		Message:   messageHealthy,
	})
}

// Backend is a shared engine the handler or the client depends on, as
// /health/service reports it.
type Backend interface {
	// Name is the service's name in /health/service ("redis").
	Name() string
	// Check returns nil when the engine answers within ctx. Otherwise
	// the service is reported down with Down's text.
	Check(ctx context.Context) error
	// Down says, for operators, what the service does while the engine
	// is down ("rate limits are per replica").
	Down() string
}

// describer is an artifact store that names its back end for
// /health/service ("s3 bucket artifacts").
type describer interface{ Describe() string }

// serviceHealth checks the client's dependencies, the artifact store and
// the Backends.
// It answers 200 whatever they say; the statuses are the finding.
func (h *Handler) serviceHealth(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	services := h.client.Health(ctx)
	store := sitediag.ServiceHealth{Name: "artifactStore", Status: sitediag.Healthy, Message: "writable"}
	switch {
	case h.opts.Artifacts == nil:
		store.Status, store.Message = sitediag.Down, "not configured"
	case h.opts.Artifacts.Check(ctx) != nil:
		store.Status, store.Message = sitediag.Down, "not writable"
	}
	if d, ok := h.opts.Artifacts.(describer); ok {
		store.Message += ": " + d.Describe()
	}
	services = append(services, store)
	for _, b := range h.opts.Backends {
		s := sitediag.ServiceHealth{Name: b.Name(), Status: sitediag.Healthy, Message: "answers"}
		if err := b.Check(ctx); err != nil {
			s.Status, s.Message = sitediag.Down, b.Down()
		}
		services = append(services, s)
	}
	msg := "API is healthy"
	for _, s := range services {
		if s.Status != sitediag.Healthy {
			msg = "API is up; some services are not healthy"
			break
		}
	}
	writeJSON(w, http.StatusOK, serviceHealthBody{
		healthBody: healthBody{
			Timestamp: requestInfoOf(r.Context()).start.UnixMilli(),
			APIStatus: "success",
			APICode:   http.StatusOK,
			Message:   msg,
		},
		Services: services,
	})
}
