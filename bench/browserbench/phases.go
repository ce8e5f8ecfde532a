package main

import (
	"fmt"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/sitediag/sitediag/bench/internal/benchstat"
)

// phases name the events of a "browser job" span (see browser.Pool.Do)
// by the phase each one ends, in order.
var phases = []struct{ event, phase string }{
	{"slot acquired", "slot wait"},
	{"browser ready", "browser"},
	{"proxy ready", "proxy"},
	{"context ready", "context"},
	{"page ready", "page (spare or new)"},
	{"navigated", "navigation"},
	{"loaded", "load wait"},
	{"settled", "settle (network)"},
	{"scripts checked", "busy-script check"},
	{"capture ready", "capture set-up"},
	{"captured", "capture + encode"},
}

// jobPhases returns, for each screenshot job the exporter holds, the time
// of each phase in ms, plus "job close" (last event to the job span's end),
// "operation" (job span's end to the operation span's end) and "API and
// store" (what the API call took beyond the operation span, from
// apiTimes, in ms, in the same order).
func jobPhases(exp *tracetest.InMemoryExporter, apiTimes []float64) (map[string][]float64, error) {
	spans := exp.GetSpans()
	ops := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		if s.Name == "sitediag.Screenshot" {
			ops[s.SpanContext.SpanID().String()] = s
		}
	}
	out := map[string][]float64{}
	n := 0
	for _, s := range spans {
		if s.Name != "browser job" {
			continue
		}
		op, ok := ops[s.Parent.SpanID().String()]
		if !ok {
			continue
		}
		last := s.StartTime
		for _, p := range phases {
			for _, e := range s.Events {
				if e.Name == p.event {
					out[p.phase] = append(out[p.phase], benchstat.Millis(e.Time.Sub(last)))
					last = e.Time
				}
			}
		}
		out["job close"] = append(out["job close"], benchstat.Millis(s.EndTime.Sub(last)))
		out["operation"] = append(out["operation"], benchstat.Millis(op.EndTime.Sub(s.EndTime)+s.StartTime.Sub(op.StartTime)))
		if n < len(apiTimes) {
			out["API and store"] = append(out["API and store"], apiTimes[n]-benchstat.Millis(op.EndTime.Sub(op.StartTime)))
		}
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("no screenshot job was traced")
	}
	return out, nil
}

// printPhases prints the median of each phase.
func printPhases(out map[string][]float64) {
	fmt.Println("\n/screenshot phases (median ms of the timed runs):")
	names := []string{}
	for _, p := range phases {
		names = append(names, p.phase)
	}
	names = append(names, "job close", "operation", "API and store")
	for _, name := range names {
		if ds := out[name]; len(ds) > 0 {
			fmt.Printf("  %-24s %8.1f  (%d jobs)\n", name, benchstat.Median(ds), len(ds))
		}
	}
}
