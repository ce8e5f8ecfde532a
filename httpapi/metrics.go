package httpapi

import (
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitediag/sitediag"
)

// metrics are the handler's Prometheus metrics. The handler counts its
// requests and artifacts; the client's browser pool and SSRF refusals
// are read at scrape time. It is a prometheus.Collector (Handler.Metrics).
type metrics struct {
	client *sitediag.Client

	requests      *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	inFlight      prometheus.Gauge
	artifacts     prometheus.Counter
	artifactBytes prometheus.Counter

	browserSlots, browserRunning, browserWaiting *prometheus.Desc
	browserStarts, browserCrashes, browserBusy   *prometheus.Desc
	refused                                      *prometheus.Desc
}

func newMetrics(client *sitediag.Client) *metrics {
	gauge := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("sitediag_"+name, help, labels, nil)
	}
	return &metrics{
		client: client,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sitediag_requests_total",
			Help: "API requests by operation (route), HTTP status and API code (the error's message; empty on success).",
		}, []string{"operation", "status", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sitediag_request_duration_seconds",
			Help:    "API request durations by operation (route).",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 20, 30, 60, 90},
		}, []string{"operation"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "sitediag_requests_in_flight", Help: "API requests being served.",
		}),
		artifacts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "sitediag_artifacts_stored_total", Help: "Artifacts (screenshots, PDFs, reports) stored.",
		}),
		artifactBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "sitediag_artifact_bytes_total", Help: "Bytes of the artifacts stored.",
		}),
		browserSlots:   gauge("browser_job_slots", "Browser jobs that may run at once."),
		browserRunning: gauge("browser_jobs_running", "Browser jobs running."),
		browserWaiting: gauge("browser_jobs_queued", "Browser jobs waiting for a slot."),
		browserStarts:  gauge("browser_starts_total", "Browsers started (first use, restarts, replacements)."),
		browserCrashes: gauge("browser_crashes_total", "Browsers that died before the pool closed them."),
		browserBusy:    gauge("browser_busy_rejections_total", "Browser jobs turned away because the queue was full."),
		refused:        gauge("ssrf_refusals_total", "Addresses the SSRF policy refused, by class.", "class"),
	}
}

// Describe implements prometheus.Collector.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	m.requests.Describe(ch)
	m.duration.Describe(ch)
	m.inFlight.Describe(ch)
	m.artifacts.Describe(ch)
	m.artifactBytes.Describe(ch)
	for _, d := range []*prometheus.Desc{m.browserSlots, m.browserRunning, m.browserWaiting,
		m.browserStarts, m.browserCrashes, m.browserBusy, m.refused} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	m.requests.Collect(ch)
	m.duration.Collect(ch)
	m.inFlight.Collect(ch)
	m.artifacts.Collect(ch)
	m.artifactBytes.Collect(ch)
	st := m.client.Stats()
	b := st.Browser
	ch <- prometheus.MustNewConstMetric(m.browserSlots, prometheus.GaugeValue, float64(b.Slots))
	ch <- prometheus.MustNewConstMetric(m.browserRunning, prometheus.GaugeValue, float64(b.Running))
	ch <- prometheus.MustNewConstMetric(m.browserWaiting, prometheus.GaugeValue, float64(b.Waiting))
	ch <- prometheus.MustNewConstMetric(m.browserStarts, prometheus.CounterValue, float64(b.Starts))
	ch <- prometheus.MustNewConstMetric(m.browserCrashes, prometheus.CounterValue, float64(b.Crashes))
	ch <- prometheus.MustNewConstMetric(m.browserBusy, prometheus.CounterValue, float64(b.Rejected))
	for class, n := range st.Refused {
		ch <- prometheus.MustNewConstMetric(m.refused, prometheus.CounterValue, float64(n), class)
	}
}

// observe records one served request.
func (m *metrics) observe(operation string, status int, code string, d time.Duration) {
	m.requests.WithLabelValues(operation, strconv.Itoa(status), code).Inc()
	m.duration.WithLabelValues(operation).Observe(d.Seconds())
}

// counted counts the bytes read through it into an artifact.
type counted struct {
	io.Reader
	n atomic.Int64
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.Reader.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// routeLabel is the operation label of a request path: the route it
// matched, /artifacts for any artifact, "other" for paths that match
// none, so a scan of random paths cannot grow the label set.
func routeLabel(path string, routes map[string]bool) string {
	if routes[path] {
		return path
	}
	if strings.HasPrefix(path, "/artifacts/") {
		return "/artifacts"
	}
	return "other"
}
