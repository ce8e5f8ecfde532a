package browser

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"github.com/sitediag/sitediag/internal/tracing"
)

// Waits once a page has navigated. Each is capped by the job's deadline
// too.
const (
	loadWait = 30 * time.Second // for the load event
	idleWait = 3 * time.Second  // then for the network to settle:
	// quietPeriod is how long no request may start, on a page with
	// scripts, before its network counts as settled: a script that runs
	// just after the load event may start one, and its first event
	// follows within milliseconds.
	quietPeriod = 20 * time.Millisecond
	// busyProbe is how long the page's main thread has to answer, once
	// the wait for the load has ended, before its scripts count as
	// keeping it busy.
	busyProbe = time.Second
	// scriptCheckWait is how long the page has, once its scripts are
	// stopped, to answer whether it has any: a main thread still busy
	// then was not busy with scripts.
	scriptCheckWait = 5 * time.Second
)

// hasScriptsJS says whether the document can run script: a script
// element, an inline event handler, or a frame (whose scripts share the
// main thread).
const hasScriptsJS = `() => document.scripts.length > 0 || document.querySelector('iframe, frame, object, embed') !== null ||
	document.evaluate('count(//@*[starts-with(name(), "on")])', document, null, XPathResult.NUMBER_TYPE, null).numberValue > 0`

// checkJS looks at the page as it is: whether it can run script
// (hasScriptsJS), and with captcha the challenge interstitial it shows
// (challengeJS). With cookie it hides the consent platforms' banners and
// gives scrolling back (hideConsentJS). A page that cannot run script is laid out
// (Chromium usually has, before the load event), so that what its layout
// asks for (fonts, background images, lazy images in view) is under way
// before the wait for the network ends, not while the page is captured.
var checkJS = `(captcha, cookie) => {
  const scripts = (` + hasScriptsJS + `)();
  if (!scripts && document.documentElement) void document.documentElement.offsetHeight;
  if (cookie) (` + hideConsentJS + `)();
  return { scripts, challenge: captcha ? (` + challengeJS + `)() : '' };
}`

// pageCheck is what checkJS found.
type pageCheck struct {
	Scripts   bool   `json:"scripts"`
	Challenge string `json:"challenge"`
}

// settle waits for the page once it has navigated and checks it (see
// Load), filling in v's Loaded and ScriptsStopped. What the final check
// found is returned; a page that could not be checked counts as one with
// scripts and nothing else found.
//
// A page that can run no script starts no request of its own once it has
// loaded and been laid out: its network has settled when the requests
// under way (those its layout started included) have ended. One with
// scripts gets the quiet period, and is checked again after it.
func (j *Job) settle(ctx context.Context, v *Visit, opts LoadOptions) (pageCheck, error) {
	v.Loaded = j.waitLoad(ctx)
	check, busy := j.probe(ctx, opts)
	if v.Loaded && !busy {
		quiet := time.Duration(0)
		if check.Scripts {
			quiet = quietPeriod
		}
		j.waitQuiet(ctx, quiet)
		tracing.Event(ctx, "settled")
		if check.Scripts {
			check, busy = j.probe(ctx, opts)
		}
	}
	if busy {
		var err error
		if v.ScriptsStopped, err = j.stopScripts(ctx); err != nil {
			return pageCheck{}, err
		}
		// What the page shows is all it will: no challenge clears.
		check = pageCheck{}
		if opts.HideCookie {
			wait, cancel := context.WithTimeout(ctx, scriptCheckWait)
			j.check(wait, LoadOptions{HideCookie: true})
			cancel()
		}
	}
	tracing.Event(ctx, "scripts checked")
	return check, nil
}

// waitLoad waits for the current main document's load event, at most
// loadWait and half the time ctx has left (the rest is for what comes
// after the load). It reports whether the event fired; the span in ctx
// then gets the event "loaded".
func (j *Job) waitLoad(ctx context.Context) bool {
	wait := loadWait
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl)/2)
	}
	loaded := func(s *pageData) bool { return s.lifecycle[lifecycleKey{s.doc.loaderID, "load"}] }
	if !j.state.wait(ctx, wait, loaded) {
		return false
	}
	tracing.Event(ctx, "loaded")
	return true
}

// waitQuiet waits, at most idleWait, until no request of the page is
// under way and none has started or ended for quiet.
func (j *Job) waitQuiet(ctx context.Context, quiet time.Duration) {
	deadline := time.Now().Add(idleWait)
	idle := func(s *pageData) bool { return len(s.inflight) == 0 }
	for j.state.wait(ctx, time.Until(deadline), idle) {
		left := quiet - time.Since(j.state.activity())
		if left <= 0 || time.Now().After(deadline) {
			return
		}
		t := time.NewTimer(left)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
}

// probe checks the page (see check) within busyProbe, and reports
// whether its main thread was too busy to answer.
func (j *Job) probe(ctx context.Context, opts LoadOptions) (pageCheck, bool) {
	probe, cancel := context.WithTimeout(ctx, busyProbe)
	defer cancel()
	check, err := j.check(probe, opts)
	busy := err != nil && probe.Err() != nil && ctx.Err() == nil
	if err != nil {
		check.Scripts = true // not known: the page gets the quiet period
	}
	return check, busy
}

// check runs checkJS in the page, with opts' SkipCaptcha and HideCookie,
// in one evaluation.
func (j *Job) check(ctx context.Context, opts LoadOptions) (pageCheck, error) {
	var check pageCheck
	expr := "(" + checkJS + ")(" + strconv.FormatBool(opts.SkipCaptcha) + ", " + strconv.FormatBool(opts.HideCookie) + ")"
	res, err := proto.RuntimeEvaluate{Expression: expr, ReturnByValue: true}.Call(j.page.Context(ctx))
	switch {
	case err != nil:
		return check, err
	case res.ExceptionDetails != nil:
		return check, &StepError{Step: "checking the page", Err: errors.New(res.ExceptionDetails.Text)}
	}
	return check, res.Result.Value.Unmarshal(&check)
}

// stopScripts disables the page's scripts and terminates the one running,
// so the page can be read and captured as it is, and reports true —
// unless the page has no script at all (a large document still being laid
// out), or its main thread stays busy with scripts stopped: then the
// scripts were not what kept it busy.
func (j *Job) stopScripts(ctx context.Context) (bool, error) {
	page := j.page.Context(ctx)
	if err := (proto.EmulationSetScriptExecutionDisabled{Value: true}).Call(page); err != nil {
		return false, j.fail(ctx, "disabling the page's scripts", err)
	}
	if err := (proto.RuntimeTerminateExecution{}).Call(page); err != nil {
		return false, j.fail(ctx, "stopping the page's scripts", err)
	}
	check, cancel := context.WithTimeout(ctx, scriptCheckWait)
	defer cancel()
	res, err := j.page.Context(check).Eval(hasScriptsJS)
	if err != nil {
		if ctx.Err() != nil {
			return false, j.fail(ctx, "checking the page's scripts", ctx.Err())
		}
		return false, nil // still busy with its scripts stopped: not theirs
	}
	return res.Value.Bool(), nil
}
