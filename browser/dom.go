package browser

import (
	"context"
	"errors"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// ErrTooLarge means the page's DOM serialised to more than the bytes
// asked for.
var ErrTooLarge = errors.New("browser: the page's document is too large")

// HTML returns the page's document as it is now (scripts run, the DOM
// serialised), or ErrTooLarge when it is longer than maxBytes.
func (j *Job) HTML(ctx context.Context, maxBytes int) (string, error) {
	page := j.page.Context(ctx)
	res, err := proto.RuntimeEvaluate{
		Expression:    `(() => { const d = document.documentElement; return d ? d.outerHTML.length : 0 })()`,
		ReturnByValue: true,
	}.Call(page)
	if err != nil {
		return "", j.fail(ctx, "measuring the document", err)
	}
	if n := res.Result.Value.Int(); n > maxBytes {
		return "", ErrTooLarge
	}
	html, err := page.HTML()
	if err != nil {
		return "", j.fail(ctx, "reading the document", err)
	}
	if len(html) > maxBytes {
		return "", ErrTooLarge
	}
	return html, nil
}

// WaitFor waits up to d for an element matching selector to be in the
// page, and reports whether one came. An invalid selector is a
// *SelectorError.
func (j *Job) WaitFor(ctx context.Context, selector string, d time.Duration) (bool, error) {
	page := j.page.Context(ctx)
	deadline := time.Now().Add(d)
	for {
		res, err := page.Eval(`sel => { try { return document.querySelector(sel) ? "found" : "" } catch (e) { return "invalid" } }`, selector)
		if err != nil {
			return false, j.fail(ctx, "waiting for an element", err)
		}
		switch res.Value.Str() {
		case "found":
			return true, nil
		case "invalid":
			return false, &SelectorError{Selector: selector}
		}
		if time.Now().After(deadline) {
			return false, nil
		}
		select {
		case <-time.After(selectorPoll):
		case <-ctx.Done():
			return false, j.fail(ctx, "waiting for an element", ctx.Err())
		}
	}
}
