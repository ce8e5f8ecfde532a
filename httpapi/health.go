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

type healthBody struct {
	Timestamp int64                    `json:"timestamp"`
	APIStatus string                   `json:"apiStatus"`
	APICode   int                      `json:"apiCode"`
	Message   string                   `json:"message"`
	Services  []sitediag.ServiceHealth `json:"services,omitempty"`
}

func (h *Handler) health(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	writeJSON(w, http.StatusOK, healthBody{
		Timestamp: requestInfoOf(r.Context()).start.UnixMilli(),
		APIStatus: "success",
		APICode:   http.StatusOK,
		Message:   messageHealthy,
	})
}

// serviceHealth checks the client's dependencies and the artifact store.
// It answers 200 whatever they say; the statuses are the finding.
func (h *Handler) serviceHealth(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	services := h.client.Health(ctx)
	store := sitediag.ServiceHealth{Name: "artifactStore", Status: sitediag.Healthy, Message: "writable"}
	if h.opts.Artifacts.Check(ctx) != nil {
		store.Status, store.Message = sitediag.Down, "not writable"
	}
	services = append(services, store)
	msg := "API is healthy"
	for _, s := range services {
		if s.Status != sitediag.Healthy {
			msg = "API is up; some services are not healthy"
			break
		}
	}
	writeJSON(w, http.StatusOK, healthBody{
		Timestamp: requestInfoOf(r.Context()).start.UnixMilli(),
		APIStatus: "success",
		APICode:   http.StatusOK,
		Message:   msg,
		Services:  services,
	})
}
