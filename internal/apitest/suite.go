package apitest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitediag/sitediag/httpapi"
)

// suite is every API this test binary started, for SuiteMetrics.
var suite struct {
	sync.Mutex
	apis []*API
}

// SuiteMetrics scrapes, after a test binary's tests, the metrics of every
// API they started and holds them to what the OpenAPI checker saw: each
// operation that was called has non-zero series, at least as many
// requests counted as the checker checked (the metrics count a route's
// other methods too), and a duration for each. It returns a line per
// operation, and an error naming each operation that falls short.
func SuiteMetrics() (report string, err error) {
	suite.Lock()
	apis := slices.Clone(suite.apis)
	suite.Unlock()
	checked := map[string]int{}
	requests, durations := map[string]float64{}, map[string]uint64{}
	for _, api := range apis {
		for op, n := range api.check.Counts() {
			checked[op] += n
		}
		if err := scrape(api.Handler, requests, durations); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	var errs []error
	for _, op := range slices.Sorted(maps.Keys(checked)) {
		method, path, _ := strings.Cut(op, " ")
		if method != "POST" {
			continue
		}
		fmt.Fprintf(&b, "%-22s checked %5d  sitediag_requests_total %5.0f  durations %5d\n", path, checked[op], requests[path], durations[path])
		if requests[path] < float64(checked[op]) || durations[path] != uint64(requests[path]) {
			errs = append(errs, fmt.Errorf("%s: checked %d requests, metrics counted %.0f with %d durations", path, checked[op], requests[path], durations[path]))
		}
	}
	return b.String(), errors.Join(errs...)
}

// scrape adds a handler's request counts and duration counts, by
// operation, to requests and durations.
func scrape(h *httpapi.Handler, requests map[string]float64, durations map[string]uint64) error {
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(h.Metrics()); err != nil {
		return err
	}
	families, err := reg.Gather()
	if err != nil {
		return err
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var op string
			for _, l := range m.GetLabel() {
				if l.GetName() == "operation" {
					op = l.GetValue()
				}
			}
			switch f.GetName() {
			case "sitediag_requests_total":
				requests[op] += m.GetCounter().GetValue()
			case "sitediag_request_duration_seconds":
				durations[op] += m.GetHistogram().GetSampleCount()
			}
		}
	}
	return nil
}
