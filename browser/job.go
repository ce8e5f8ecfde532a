package browser

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/sitediag/sitediag/net/netx"

	"github.com/sitediag/sitediag/internal/tracing"
)

// Waits while a job opens and closes its page. Each is capped by the
// job's deadline too.
const (
	docEventsWait = 2 * time.Second // for a failed navigation's events
	closeTimeout  = 5 * time.Second // for releasing a job's context
)

// JobOptions shape a job's browser context and page. The zero value is a
// desktop page with the page's own colour scheme, direct connections and
// no ad blocking.
type JobOptions struct {
	// Device is the emulated device. If empty, Desktop.
	Device Device
	// Width and Height are the viewport in CSS pixels. If zero, the
	// device's.
	Width, Height int
	// Scale is the device scale factor. If zero, the device's.
	Scale float64
	// Theme is the emulated prefers-color-scheme. If empty, the page's
	// own choice.
	Theme Theme
	// DisableAnimations emulates prefers-reduced-motion: reduce, and
	// before a screenshot finishes CSS animations and transitions and
	// turns them off.
	DisableAnimations bool
	// RemoveBackground makes the default page background transparent
	// (PNG and WebP keep the alpha channel).
	RemoveBackground bool
	// BlockAds refuses requests to the ad and tracker hosts IsAdHost
	// knows (except the host the job loads).
	BlockAds bool
	// Upstream is a proxy (a country proxy) that the job's allowed
	// requests go through. Nil means direct.
	Upstream *url.URL
	// Timeout shortens the job's deadline (see Pool.JobTimeout). Zero
	// means Config.JobTimeout.
	Timeout time.Duration
}

// Job is one page in its own browser context, behind its own filtering
// proxy. Its methods take the context Do handed out.
type Job struct {
	inst      *instance
	opts      JobOptions
	view      Viewport
	device    emulated // zero until emulate
	proxy     netx.Proxy
	auth      *proxyAuth // nil when the proxy demands no credentials
	contextID proto.BrowserBrowserContextID
	targetID  proto.TargetTargetID
	page      *rod.Page
	blockAds  atomic.Bool
	exempt    atomic.Pointer[string]
	state     *pageState
	loopDone  chan struct{}
	// stopPage ends the page's event subscription.
	stopPage context.CancelFunc

	cancelMu sync.Mutex
	cancel   context.CancelCauseFunc
}

// start gives a job its page: the instance's spare (the one being opened
// included) when the job needs no upstream proxy, else a new one; then it
// applies opts. cancel ends the job (with ErrCrashed when its page
// crashes).
func (in *instance) start(ctx context.Context, g netx.Network, opts JobOptions, cancel context.CancelCauseFunc) (*Job, error) {
	if opts.Upstream == nil {
		if j := in.takeSpare(ctx); j != nil {
			if err := j.adopt(ctx, opts, cancel); err == nil {
				return j, nil
			}
			j.close(ctx)
		}
	}
	j, err := in.open(ctx, g, opts.Upstream)
	if err != nil {
		return nil, err
	}
	if err := j.adopt(ctx, opts, cancel); err != nil {
		j.close(ctx)
		return nil, err
	}
	return j, nil
}

// open creates a blank page in a new browser context behind a new
// filtering proxy (chained to upstream when set). The page's events are
// followed until the job closes, ctx ends or the page goes.
func (in *instance) open(ctx context.Context, g netx.Network, upstream *url.URL) (_ *Job, err error) {
	ctx, stop := context.WithCancel(ctx)
	j := &Job{inst: in, loopDone: make(chan struct{}), state: newPageState(), stopPage: stop}
	if j.proxy, err = g.ListenProxy(netx.ProxyOptions{Upstream: upstream, Block: j.blockedHost}); err != nil {
		return nil, err
	}
	tracing.Event(ctx, "proxy ready")
	j.auth = newProxyAuth(j.proxy)
	defer func() {
		if err != nil {
			j.close(ctx)
		}
	}()
	rb := in.rb.Context(ctx)
	bc, err := proto.TargetCreateBrowserContext{
		DisposeOnDetach: true,
		ProxyServer:     j.proxy.URL(),
		ProxyBypassList: "<-loopback>",
	}.Call(rb)
	if err != nil {
		return nil, j.fail(ctx, "creating a browser context", err)
	}
	j.contextID = bc.BrowserContextID
	tracing.Event(ctx, "context ready")
	in.pagesMu.Lock()
	in.register(j)
	in.pagesMu.Unlock()
	err = proto.BrowserSetDownloadBehavior{
		Behavior:         proto.BrowserSetDownloadBehaviorBehaviorDeny,
		BrowserContextID: j.contextID,
	}.Call(rb)
	if err != nil {
		return nil, j.fail(ctx, "denying downloads", err)
	}
	in.pagesMu.Lock()
	target, err := proto.TargetCreateTarget{URL: "about:blank", BrowserContextID: j.contextID}.Call(rb)
	if err == nil {
		j.targetID = target.TargetID
		in.register(j)
	}
	in.pagesMu.Unlock()
	if err != nil {
		return nil, j.fail(ctx, "opening a page", err)
	}
	if j.page, err = rb.PageFromTarget(j.targetID); err != nil {
		return nil, j.fail(ctx, "attaching to the page", err)
	}
	go j.loop(j.page.Event())
	if err := (proto.PageSetLifecycleEventsEnabled{Enabled: true}).Call(j.page); err != nil {
		return nil, j.fail(ctx, "enabling lifecycle events", err)
	}
	if err := (proto.NetworkEnable{}).Call(j.page); err != nil {
		return nil, j.fail(ctx, "enabling network events", err)
	}
	if j.auth != nil {
		if err := j.auth.enable(ctx, j); err != nil {
			return nil, j.fail(ctx, "enabling the proxy's challenges", err)
		}
	}
	return j, nil
}

// adopt makes a blank page the job's: its options, its cancel function,
// its device.
func (j *Job) adopt(ctx context.Context, opts JobOptions, cancel context.CancelCauseFunc) error {
	j.opts = opts
	j.blockAds.Store(opts.BlockAds)
	j.cancelMu.Lock()
	j.cancel = cancel
	j.cancelMu.Unlock()
	if err := j.emulate(ctx, j.inst.version); err != nil {
		return j.fail(ctx, "emulating the device", err)
	}
	return nil
}

// crash ends the job with ErrCrashed; a spare page has no job to end.
func (j *Job) crash() {
	j.cancelMu.Lock()
	defer j.cancelMu.Unlock()
	if j.cancel != nil {
		j.cancel(ErrCrashed)
	}
}

// fail wraps a set-up error, preferring the reason the job was cancelled.
func (j *Job) fail(ctx context.Context, doing string, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		return cause
	}
	return &StepError{Step: doing, Err: err}
}

// StepError is a browser operation that failed for a reason other than
// the page's network: a DevTools call, a capture, a print.
type StepError struct {
	Step string
	Err  error
}

func (e *StepError) Error() string { return "browser: " + e.Step + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *StepError) Unwrap() error { return e.Err }

// close releases the job's context, page and proxy.
func (j *Job) close(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	defer cancel()
	rb := j.inst.rb.Context(ctx)
	if j.contextID != "" {
		proto.TargetDisposeBrowserContext{BrowserContextID: j.contextID}.Call(rb)
	}
	j.inst.pagesMu.Lock()
	delete(j.inst.contexts, j.contextID)
	delete(j.inst.pages, j.targetID)
	j.inst.pagesMu.Unlock()
	j.stopPage()
	if j.page != nil {
		select {
		case <-j.loopDone:
		case <-ctx.Done():
		}
		j.inst.rb.RemoveState(j.targetID)
	}
	j.proxy.Close()
}

// discard ends a page that never ran a job (a spare) when its browser
// goes: its event loop stops and its proxy closes. Its browser context
// goes with the connection (DisposeOnDetach) or with the browser.
func (j *Job) discard() {
	j.stopPage()
	select {
	case <-j.loopDone:
	case <-time.After(closeTimeout):
	}
	j.proxy.Close()
}

// Stats are what a job's proxy did not let through.
type Stats struct {
	// Refused counts requests the SSRF policy refused.
	Refused int
	// Blocked counts requests to ad and tracker hosts (JobOptions.BlockAds).
	Blocked int
}

// Stats returns the counts so far.
func (j *Job) Stats() Stats {
	refused, blocked := j.proxy.Counts()
	return Stats{Refused: refused, Blocked: blocked}
}

// Page returns the job's page for what this package does not wrap,
// bound to ctx. Everything it loads goes through the job's proxy.
func (j *Job) Page(ctx context.Context) *rod.Page { return j.page.Context(ctx) }

// blockedHost is the ad filter: with BlockAds, an ad host (IsAdHost),
// unless it is the host the job was asked to load.
func (j *Job) blockedHost(host string) bool {
	if !j.blockAds.Load() {
		return false
	}
	if exempt := j.exempt.Load(); exempt != nil && *exempt == host {
		return false
	}
	return IsAdHost(host)
}

// loop follows the page's events: it dismisses dialogs and records the
// main document and its lifecycle.
func (j *Job) loop(events <-chan *rod.Message) {
	defer close(j.loopDone)
	frame := proto.PageFrameID(j.targetID)
	for msg := range events {
		switch msg.Method {
		case "Page.javascriptDialogOpening":
			proto.PageHandleJavaScriptDialog{Accept: false}.Call(j.page)
		case "Page.lifecycleEvent":
			var e proto.PageLifecycleEvent
			if load(msg, &e) && e.FrameID == frame {
				j.state.update(func(s *pageData) { s.lifecycle[lifecycleKey{e.LoaderID, string(e.Name)}] = true })
			}
		case "Network.requestWillBeSent":
			var e proto.NetworkRequestWillBeSent
			if load(msg, &e) && !strings.HasPrefix(e.Request.URL, "data:") {
				j.state.update(func(s *pageData) { s.record(e.RequestID, e.Request.URL, string(e.Type)) })
			}
			if load(msg, &e) && !strings.HasPrefix(e.Request.URL, "data:") && !strings.HasSuffix(e.Request.URL, "/favicon.ico") {
				j.state.update(func(s *pageData) {
					s.inflight[e.RequestID] = true
					s.activity = time.Now()
					if e.Type == proto.NetworkResourceTypeDocument && e.FrameID == frame {
						s.doc = document{requestID: e.RequestID, loaderID: e.LoaderID, url: e.Request.URL}
					}
				})
			}
		case "Network.loadingFinished":
			var e proto.NetworkLoadingFinished
			if load(msg, &e) {
				j.state.update(func(s *pageData) { s.finished(e.RequestID) })
			}
		case "Network.responseReceived":
			var e proto.NetworkResponseReceived
			if load(msg, &e) {
				j.state.update(func(s *pageData) {
					if s.doc.requestID == e.RequestID {
						s.doc.status, s.doc.done = e.Response.Status, true
					}
				})
			}
		case "Network.loadingFailed":
			var e proto.NetworkLoadingFailed
			if load(msg, &e) {
				j.state.update(func(s *pageData) {
					s.finished(e.RequestID)
					s.failed(e.RequestID, string(e.BlockedReason), e.ErrorText)
					if s.doc.requestID == e.RequestID {
						s.doc.errorText, s.doc.done = e.ErrorText, true
					}
				})
			}
		case "Network.webSocketCreated":
			var e proto.NetworkWebSocketCreated
			if load(msg, &e) {
				j.state.update(func(s *pageData) { s.record(e.RequestID, e.URL, string(proto.NetworkResourceTypeWebSocket)) })
			}
		case "Audits.issueAdded":
			var e proto.AuditsIssueAdded
			if load(msg, &e) && e.Issue != nil && e.Issue.Details != nil && e.Issue.Details.MixedContentIssueDetails != nil {
				d := e.Issue.Details.MixedContentIssueDetails
				j.state.update(func(s *pageData) {
					if len(s.issues) < maxRecorded {
						s.issues = append(s.issues, MixedContentIssue{URL: d.InsecureURL, ResourceType: string(d.ResourceType), Resolution: string(d.ResolutionStatus)})
					}
				})
			}
		case "Fetch.requestPaused":
			var e proto.FetchRequestPaused
			if load(msg, &e) {
				proto.FetchContinueRequest{RequestID: e.RequestID}.Call(j.page)
			}
		case "Fetch.authRequired":
			var e proto.FetchAuthRequired
			if load(msg, &e) {
				proto.FetchContinueWithAuth{RequestID: e.RequestID, AuthChallengeResponse: j.auth.answer(&e)}.Call(j.page)
			}
		case "Inspector.targetCrashed":
			// The browser is retired before the job hears of it, so the
			// job that follows never runs on it.
			j.inst.onCrash(j.inst)
			j.crash()
		}
	}
}

// document is the page's main document request: the latest navigation of
// the main frame, redirects followed.
type document struct {
	requestID proto.NetworkRequestID
	loaderID  proto.NetworkLoaderID
	url       string
	status    int
	errorText string
	done      bool
}

type lifecycleKey struct {
	loader proto.NetworkLoaderID
	name   string
}

type pageData struct {
	doc       document
	lifecycle map[lifecycleKey]bool
	// inflight are the page's requests under way; activity is when one
	// last started or ended.
	inflight map[proto.NetworkRequestID]bool
	activity time.Time
	// requests are what the page asked for (at most maxRecorded), by
	// index of their id; issues its mixed-content issues.
	requests []Request
	byID     map[proto.NetworkRequestID]int
	issues   []MixedContentIssue
}

func (s *pageData) finished(id proto.NetworkRequestID) {
	if s.inflight[id] {
		delete(s.inflight, id)
		s.activity = time.Now()
	}
}

// pageState is what the event loop learnt, with a way to wait for it.
type pageState struct {
	mu      sync.Mutex
	changed chan struct{}
	data    pageData
}

func newPageState() *pageState {
	return &pageState{changed: make(chan struct{}), data: pageData{
		lifecycle: map[lifecycleKey]bool{},
		inflight:  map[proto.NetworkRequestID]bool{},
		byID:      map[proto.NetworkRequestID]int{},
	}}
}

func (s *pageState) update(f func(*pageData)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.data)
	close(s.changed)
	s.changed = make(chan struct{})
}

// read runs f on the data without signalling a change.
func (s *pageState) read(f func(*pageData)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.data)
}

func (s *pageState) activity() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.data.activity
}

func (s *pageState) doc() document {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.data.doc
}

// wait waits until cond holds, for at most d and while ctx lasts.
func (s *pageState) wait(ctx context.Context, d time.Duration, cond func(*pageData) bool) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		s.mu.Lock()
		ok, changed := cond(&s.data), s.changed
		s.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-changed:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// LoadOptions shape Load. The zero value navigates and waits for the
// page to load, nothing more.
type LoadOptions struct {
	// HideCookie hides the common consent platforms' banners and
	// restores page scrolling (the platforms are listed in consent.go),
	// once the page has loaded: a style added to the document hides them
	// from then on, those a script adds later included.
	HideCookie bool
	// SkipCaptcha waits, for a bounded time, for a known bot
	// challenge interstitial to clear by itself. It never solves one.
	SkipCaptcha bool
	// Delay is waited after the page has loaded.
	Delay time.Duration
}

// Visit is what Load found.
type Visit struct {
	// URL is the main document's final URL, redirects followed.
	URL string
	// Status is its HTTP status.
	Status int
	// Loaded says the page's load event fired within the wait; when
	// false, the page is used as it was when the wait ended.
	Loaded bool
	// ScriptsStopped says the page's scripts were keeping its main
	// thread busy when the wait ended (as while(true){} does), so they
	// were stopped and disabled: the page stays as it was then.
	ScriptsStopped bool
	// Challenge names the challenge interstitial the page showed, or is
	// empty; ChallengeCleared says whether it went away in time.
	Challenge        string
	ChallengeCleared bool
}

// Load navigates the page to target and waits for it: the load event (at
// most 30 s, and at most half the time ctx has left), then the network
// (at most 3 s): until the requests under way have ended and, on a page
// with scripts, none has started for 20 ms; then the options. The span
// in ctx gets the events "navigated", "loaded", "settled", "scripts
// checked" and "delay done" as each wait ends. A page whose scripts keep
// its main thread busy when that wait ends has them stopped (see
// Visit.ScriptsStopped), so that it can still be read and captured.
// Errors: a *NavigationError when the main document could not be loaded
// (its Err wraps netx.ErrNotAllowed when the policy refused it, a redirect
// included), ErrCrashed, ctx's error when it ends after the document
// arrived, or a *StepError.
func (j *Job) Load(ctx context.Context, target string, opts LoadOptions) (*Visit, error) {
	if u, err := url.Parse(target); err == nil {
		// In the proxy's form: lower case, no trailing dot.
		host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		j.exempt.Store(&host)
	}
	nav, err := proto.PageNavigate{URL: target}.Call(j.page.Context(ctx))
	if err != nil {
		if ctx.Err() != nil {
			return nil, j.interrupted(ctx, target)
		}
		return nil, j.fail(ctx, "navigating", err)
	}
	if nav.ErrorText != "" {
		return nil, j.navigationFailed(ctx, target, nav.LoaderID, nav.ErrorText)
	}
	tracing.Event(ctx, "navigated")
	v := &Visit{}
	check, err := j.settle(ctx, v, opts)
	if err != nil {
		return nil, err
	}
	if opts.SkipCaptcha && !v.ScriptsStopped && check.Challenge != "" {
		v.Challenge, v.ChallengeCleared = check.Challenge, j.waitChallenge(ctx)
		if opts.HideCookie {
			// On the page the challenge led to.
			j.check(ctx, LoadOptions{HideCookie: true})
		}
	}
	if opts.Delay > 0 {
		t := time.NewTimer(opts.Delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		tracing.Event(ctx, "delay done")
	}
	if ctx.Err() != nil {
		// The document arrived: the time went on the page, not the
		// network.
		return nil, j.fail(ctx, "waiting for the page", ctx.Err())
	}
	doc := j.state.doc()
	if doc.url == "" {
		doc.url = target
	}
	if err := j.failure(doc.url); err != nil {
		return nil, &NavigationError{URL: doc.url, Err: err}
	}
	if err := j.checkErrorPage(ctx, doc); err != nil {
		return nil, err
	}
	v.URL, v.Status = doc.url, doc.status
	return v, nil
}

// checkErrorPage returns a *NavigationError when the main frame shows
// Chromium's error page: a later navigation (a script's, a meta
// refresh) failed after the first document loaded, so what the page
// now holds is "This site can't be reached", not the site.
func (j *Job) checkErrorPage(ctx context.Context, doc document) error {
	tree, err := proto.PageGetFrameTree{}.Call(j.page.Context(ctx))
	if err != nil {
		return j.fail(ctx, "reading the frame tree", err)
	}
	unreachable := tree.FrameTree.Frame.UnreachableURL
	if unreachable == "" {
		return nil
	}
	reason := ""
	if doc.url == unreachable {
		reason = doc.errorText
	}
	return &NavigationError{URL: unreachable, Reason: reason, Err: j.failure(unreachable)}
}

// navigationFailed builds the error of a navigation Chromium gave up on,
// after the page's events for it have arrived.
func (j *Job) navigationFailed(ctx context.Context, target string, loader proto.NetworkLoaderID, reason string) error {
	j.state.wait(ctx, docEventsWait, func(s *pageData) bool { return s.doc.loaderID == loader && s.doc.done })
	doc := j.state.doc()
	u := doc.url
	if u == "" || doc.loaderID != loader {
		u = target
	}
	return &NavigationError{URL: u, Reason: reason, Err: j.failure(u)}
}

// interrupted is the error of a navigation cut short by the job's end.
func (j *Job) interrupted(ctx context.Context, target string) error {
	if cause := context.Cause(ctx); errors.Is(cause, ErrCrashed) || errors.Is(cause, ErrClosed) {
		return cause
	}
	return &NavigationError{URL: target, Reason: "net::ERR_TIMED_OUT", Err: ctx.Err()}
}

// failure is what the job's proxy knows about the last request to the
// host of rawURL: nil when it went through.
func (j *Job) failure(rawURL string) error { return FailureOf(j.proxy, rawURL) }

// FailureOf is what p knows about the last request to the host and port
// of rawURL (see netx.Proxy.Failure): nil when it went through, or when
// rawURL is not an http or https URL.
func FailureOf(p netx.Proxy, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil
	}
	port := map[string]uint64{"http": 80, "https": 443}[u.Scheme]
	if n := u.Port(); n != "" {
		if port, err = strconv.ParseUint(n, 10, 16); err != nil {
			return nil
		}
	}
	return p.Failure(u.Hostname(), uint16(port))
}
