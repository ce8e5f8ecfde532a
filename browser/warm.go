package browser

import (
	"context"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// warmWait bounds the warm-up of a spare page.
const warmWait = 5 * time.Second

// warmJS draws, in a spare page's blank document, a little of what every
// page has: text in the generic font families, in bold and italic, a
// border, an inline SVG and an SVG image; it lays them out, waits for two
// frames to be drawn and empties the document again. A renderer pays
// once for the first of each (its user-agent style sheets, the fonts it
// looks up, SVG's own style sheet and document set-up, its first frames):
// done here, on the spare's own renderer before a job adopts it, none of
// that is on a job's time. Nothing is fetched (a data: URL) and nothing
// stays in the document.
const warmJS = `new Promise((done) => {
  const body = document.body || document.documentElement.appendChild(document.createElement('body'));
  body.innerHTML = '<h1 style="font:bold 2em sans-serif">Warm</h1>' +
    '<p style="font:1em serif;border:1px solid #ccc;border-radius:8px">text <b>bold</b> <i>italic</i> <code>code</code></p>' +
    '<svg width="10" height="10"><rect width="10" height="10" fill="#036"/><text x="1" y="9">s</text></svg>' +
    '<img src="data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 width=%2210%22 height=%2210%22%3E%3Crect width=%2210%22 height=%2210%22/%3E%3C/svg%3E">';
  const img = body.querySelector('img');
  const finish = () => {
    void body.offsetHeight;
    requestAnimationFrame(() => requestAnimationFrame(() => { body.innerHTML = ''; done(true); }));
  };
  if (img.complete) finish(); else img.onload = img.onerror = finish;
})`

// warm runs warmJS in the job's page, at most warmWait.
func (j *Job) warm(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, warmWait)
	defer cancel()
	_, err := proto.RuntimeEvaluate{Expression: warmJS, AwaitPromise: true}.Call(j.page.Context(ctx))
	return err
}
