package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/sitediag/sitediag/internal/apitest"
)

// TestMetrics serves a few requests and reads the collector as a
// Prometheus registry would: every series the requests touched is there,
// labelled by route, status and code, and the pedantic registry accepts
// the collector's descriptions. (apitest's OpenAPI checker reads
// /openapi.json once.)
func TestMetrics(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	site := serveAs(t, api, "site.test", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))

	api.Post(t, "/up", map[string]any{"url": site}).WantSuccess(t)
	api.Post(t, "/up", map[string]any{"url": site}).WantSuccess(t)
	api.Post(t, "/up", `{"url": 5}`)
	api.Post(t, "/up", map[string]any{"url": "http://10.0.0.1/"})
	api.Post(t, "/no-such-route-"+strings.Repeat("x", 10), "{}")

	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(api.Handler.Metrics()); err != nil {
		t.Fatal(err)
	}
	want := `
# HELP sitediag_requests_total API requests by operation (route), HTTP status and API code (the error's message; empty on success).
# TYPE sitediag_requests_total counter
sitediag_requests_total{code="",operation="/openapi.json",status="200"} 1
sitediag_requests_total{code="",operation="/up",status="200"} 2
sitediag_requests_total{code="INVALID_PARAMETERS",operation="/up",status="400"} 1
sitediag_requests_total{code="NOT_FOUND",operation="other",status="404"} 1
sitediag_requests_total{code="TARGET_NOT_ALLOWED",operation="/up",status="403"} 1
# HELP sitediag_ssrf_refusals_total Addresses the SSRF policy refused, by class.
# TYPE sitediag_ssrf_refusals_total counter
sitediag_ssrf_refusals_total{class="private"} 1
# HELP sitediag_browser_job_slots Browser jobs that may run at once.
# TYPE sitediag_browser_job_slots gauge
sitediag_browser_job_slots 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"sitediag_requests_total", "sitediag_ssrf_refusals_total", "sitediag_browser_job_slots"); err != nil {
		t.Error(err)
	}
	// The third is /openapi.json, which apitest's checker reads.
	if n := testutil.CollectAndCount(api.Handler.Metrics(), "sitediag_request_duration_seconds"); n != 3 {
		t.Errorf("duration histograms: %d, want 3 (/up, other and /openapi.json)", n)
	}
}
