package lighthouse

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"time"

	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/net/netx"
)

// Options shape one audit.
type Options struct {
	// Desktop uses Lighthouse's desktop preset; otherwise its default
	// mobile emulation. A --preset in Flags wins.
	Desktop bool
	// Flags are the parsed parameters (see ParseFlags); nil means none.
	Flags *Flags
	// Upstream is a proxy (a country proxy) the audit's allowed requests
	// go through. Nil means direct.
	Upstream *url.URL
	// Timeout shortens the audit's deadline (Config.JobTimeout); the
	// page then gets half of it to load unless Flags set
	// --max-wait-for-load. Zero means Config.JobTimeout.
	Timeout time.Duration
}

// Report is an audit's result.
type Report struct {
	// HTML and JSON are Lighthouse's reports.
	HTML, JSON []byte
	// FinalURL is the URL Lighthouse audited, redirects followed.
	FinalURL string
	// Scores are the categories' scores, 0–100, by category id
	// (performance, accessibility, best-practices, seo); a category not
	// run, or without a score, is absent.
	Scores map[string]int
	// RuntimeError is set when Lighthouse could not load the page; the
	// reports then say so too.
	RuntimeError *RuntimeError
	// Refused counts what the audited page tried to load that the
	// network policy refused.
	Refused int
	// Failure, when RuntimeError is set, is why the audit's proxy did
	// not serve the audited URL (see browser.FailureOf); nil when it did.
	Failure error
}

// RuntimeError is Lighthouse's runtimeError: the page could not be
// audited (NO_FCP, FAILED_DOCUMENT_REQUEST, DNS_FAILURE,
// ERRORED_DOCUMENT_REQUEST, NOT_HTML, …).
type RuntimeError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Audit runs Lighthouse on target. Errors: a *browser.BusyError when the
// worker and its queue are taken, ErrUnavailable, ErrWorkerDied, ctx's
// error at the job's deadline (the worker is then killed), or the
// worker's own error.
func (r *Runner) Audit(ctx context.Context, target string, opts Options) (*Report, error) {
	if err := r.acquire(ctx); err != nil {
		return nil, err
	}
	defer r.slot.Release()
	start := time.Now()
	deadline := r.cfg.JobTimeout
	if opts.Timeout > 0 {
		deadline = min(deadline, opts.Timeout)
	}
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	w, err := r.worker(ctx)
	if err != nil {
		return nil, err
	}
	proxy, err := r.cfg.Network.ListenProxy(netx.ProxyOptions{Upstream: opts.Upstream})
	if err != nil {
		return nil, err
	}
	defer proxy.Close()
	req := request{URL: target, Proxy: proxy.URL(), Flags: map[string]any{}}
	if opts.Desktop {
		req.Preset = "desktop"
	}
	if opts.Flags != nil {
		req.Flags = opts.Flags.API
		if opts.Flags.Preset != "" {
			req.Preset = opts.Flags.Preset
		}
	}
	if _, ok := req.Flags["maxWaitForLoad"]; !ok && opts.Timeout > 0 {
		req.Flags["maxWaitForLoad"] = float64((deadline / 2).Milliseconds())
	}
	chrome, err := w.browser(ctx)
	if err != nil {
		r.discard(w)
		return nil, fmt.Errorf("%w: Chromium did not start: %w", ErrUnavailable, err)
	}
	defer func() {
		go chrome.Close() // its shutdown is nobody's wait
		w.prelaunch()
	}()
	control, err := url.Parse(chrome.ControlURL)
	if err != nil {
		return nil, err
	}
	req.Browser = "http://" + control.Host
	rep, err := w.run(ctx, req)
	if err != nil {
		// A worker that hung or died is not used again.
		r.discard(w)
		return nil, err
	}
	if rep.Error != "" {
		return nil, fmt.Errorf("lighthouse: %s", rep.Error)
	}
	report, err := parseReport(rep)
	if err != nil {
		return nil, err
	}
	report.Refused, _ = proxy.Counts()
	if report.RuntimeError != nil {
		report.Failure = browser.FailureOf(proxy, cmp.Or(report.FinalURL, target))
	}
	r.mu.Lock()
	r.avg = (r.avg + time.Since(start)) / 2
	r.mu.Unlock()
	return report, nil
}

// parseReport reads what sitediag needs of the JSON report.
func parseReport(rep reply) (*Report, error) {
	var lhr struct {
		FinalDisplayedURL string        `json:"finalDisplayedUrl"`
		RuntimeError      *RuntimeError `json:"runtimeError"`
		Categories        map[string]struct {
			Score *float64 `json:"score"`
		} `json:"categories"`
	}
	var raw string
	if err := json.Unmarshal(rep.LHR, &raw); err != nil {
		return nil, fmt.Errorf("lighthouse: the JSON report is not a string: %w", err)
	}
	if err := json.Unmarshal([]byte(raw), &lhr); err != nil {
		return nil, fmt.Errorf("lighthouse: the JSON report does not parse: %w", err)
	}
	if rep.HTML == "" {
		return nil, errors.New("lighthouse: no HTML report")
	}
	r := &Report{HTML: []byte(rep.HTML), JSON: []byte(raw), FinalURL: lhr.FinalDisplayedURL, RuntimeError: lhr.RuntimeError,
		Scores: map[string]int{}}
	for id, c := range lhr.Categories {
		if c.Score != nil {
			r.Scores[id] = int(math.Round(*c.Score * 100))
		}
	}
	return r, nil
}
