package browser

import (
	"context"
	"time"
)

// Bounds of the wait for a challenge interstitial to clear.
const (
	challengeWait = 15 * time.Second
	challengePoll = 500 * time.Millisecond
)

// challengeJS names the bot challenge interstitial the page shows, or
// returns "": Cloudflare, DDoS-Guard, Sucuri, Imperva, PerimeterX,
// DataDome, AWS WAF and Akamai's "Pardon Our Interruption". Such pages
// usually run a script and then reload or redirect by themselves when the
// browser passes; nothing here solves a CAPTCHA.
const challengeJS = `() => {
  const title = document.title || '';
  const has = (sel) => !!document.querySelector(sel);
  if (title === 'Just a moment...' || title.startsWith('Attention Required!') ||
      has('#challenge-form, #challenge-running, #challenge-stage, #cf-challenge-running, .cf-browser-verification, script[src*="/cdn-cgi/challenge-platform/"]'))
    return 'cloudflare';
  if (title.includes('DDoS-Guard')) return 'ddos-guard';
  if ([...document.scripts].some((s) => (s.textContent || '').includes('sucuri_cloudproxy_js'))) return 'sucuri';
  if (has('iframe[src*="_Incapsula_Resource"]')) return 'imperva';
  if (has('#px-captcha')) return 'perimeterx';
  if (has('iframe[src*="captcha-delivery.com"]')) return 'datadome';
  if (typeof window.gokuProps !== 'undefined') return 'aws-waf';
  if (title === 'Pardon Our Interruption') return 'akamai';
  return '';
}`

// waitChallenge waits, at most 15 s, for the challenge interstitial the
// page shows to go away, then for the page it leads to. It reports
// whether the challenge cleared.
func (j *Job) waitChallenge(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, challengeWait)
	defer cancel()
	t := time.NewTicker(challengePoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
		if j.challenge(ctx) == "" {
			j.waitLoad(ctx)
			j.waitQuiet(ctx, quietPeriod)
			return j.challenge(ctx) == ""
		}
	}
}

// challenge returns the name of the challenge on the page now, or "".
func (j *Job) challenge(ctx context.Context) string {
	res, err := j.page.Context(ctx).Eval(challengeJS)
	if err != nil {
		return ""
	}
	return res.Value.Str()
}
