package browser

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
	"github.com/go-rod/rod/lib/utils"
	"github.com/sitediag/sitediag/net/netx"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// instance is one connected browser: launched here (proc and its
// refuse-all proxy set) or remote.
type instance struct {
	proc *Process
	deny netx.Proxy
	ws   *watchedWS
	rb   *rod.Browser
	// dead is closed when the DevTools connection ends.
	dead     chan struct{}
	version  version
	onCrash  func(*instance)
	loopDone chan struct{}

	// Guarded by Pool.mu.
	active, started int
	retired         bool

	pagesMu  sync.Mutex
	pages    map[proto.TargetTargetID]*Job
	contexts map[proto.BrowserBrowserContextID]bool

	// spare is a blank page opened ahead of the next job; preparing is
	// closed when the one being opened is ready (nil when none is); closed
	// says no more may be.
	spareMu   sync.Mutex
	spare     *Job
	preparing chan struct{}
	closed    bool

	// capturing is held by the job whose capture is being drawn and read
	// back (see Job.Screenshot).
	capturing chan struct{}

	closeOnce sync.Once
}

// version is what the browser says it is.
type version struct {
	userAgent string // the browser's own, "HeadlessChrome/…" included
	full      string // 156.0.8078.79
	major     string // 156
}

// startInstance launches (or connects to) a browser. onCrash is called
// when one of its pages crashes.
func startInstance(ctx context.Context, cfg Config, onCrash func(*instance)) (*instance, error) {
	in := &instance{
		onCrash:   onCrash,
		pages:     map[proto.TargetTargetID]*Job{},
		contexts:  map[proto.BrowserBrowserContextID]bool{},
		loopDone:  make(chan struct{}),
		capturing: make(chan struct{}, 1),
	}
	wsURL := cfg.RemoteURL
	if wsURL != "" {
		u, err := resolveRemote(ctx, wsURL)
		if err != nil {
			return nil, &UnavailableError{Err: err}
		}
		wsURL = u
	} else {
		path, err := Find(cfg.Path)
		if err != nil {
			return nil, err
		}
		if in.deny, err = cfg.Network.ListenProxy(netx.ProxyOptions{RefuseAll: true}); err != nil {
			return nil, &UnavailableError{Err: err}
		}
		if in.proc, err = Launch(ctx, LaunchOptions{Path: path, ProxyURL: in.deny.URL()}); err != nil {
			in.deny.Close()
			return nil, &UnavailableError{Err: err}
		}
		wsURL = in.proc.ControlURL
	}
	if err := in.connect(ctx, wsURL); err != nil {
		in.close()
		return nil, &UnavailableError{Err: err}
	}
	return in, nil
}

// register records a job's browser context, or its page, as the job's.
func (in *instance) register(j *Job) {
	in.contexts[j.contextID] = true
	if j.targetID != "" {
		in.pages[j.targetID] = j
	}
}

// connect opens the DevTools connection and starts the event loop.
func (in *instance) connect(ctx context.Context, wsURL string) error {
	u, err := url.Parse(wsURL)
	if err != nil {
		return fmt.Errorf("connecting to DevTools: %w", err)
	}
	dialer := &handshakeDialer{tls: u.Scheme == "wss"}
	ws := &cdp.WebSocket{Dialer: dialer}
	err = ws.Connect(ctx, wsURL, nil)
	if dialer.conn != nil && !dialer.stop() {
		err = ctx.Err()
	}
	if err != nil {
		if dialer.conn != nil {
			dialer.conn.Close()
		}
		return fmt.Errorf("connecting to DevTools: %w", err)
	}
	in.ws = &watchedWS{WebSocket: ws, dead: make(chan struct{})}
	in.dead = in.ws.dead
	client := cdp.New().Logger(utils.LoggerQuiet).Start(in.ws)
	in.rb = rod.New().Client(client).NoDefaultDevice().Monitor("").Trace(false).SlowMotion(0)
	stop := context.AfterFunc(ctx, func() { ws.Close() })
	err = in.rb.Connect()
	if !stop() {
		return ctx.Err()
	}
	if err != nil {
		ws.Close()
		return fmt.Errorf("attaching to the browser: %w", err)
	}
	go in.loop()
	v, err := proto.BrowserGetVersion{}.Call(in.rb.Context(ctx))
	if err != nil {
		ws.Close()
		return fmt.Errorf("asking the browser's version: %w", err)
	}
	in.version.userAgent = v.UserAgent
	_, in.version.full, _ = strings.Cut(v.Product, "/")
	in.version.major, _, _ = strings.Cut(in.version.full, ".")
	return nil
}

// loop watches the browser-wide events: pages opened in a job's context
// that the job did not create are closed, and a crashed page fails its
// job and retires the browser.
func (in *instance) loop() {
	defer close(in.loopDone)
	for msg := range in.rb.Event() {
		switch msg.Method {
		case "Target.targetCreated":
			var e proto.TargetTargetCreated
			if load(msg, &e) && e.TargetInfo.Type == proto.TargetTargetInfoTypePage && in.stranger(e.TargetInfo) {
				ctx, cancel := context.WithTimeout(context.WithoutCancel(in.rb.GetContext()), 5*time.Second)
				proto.TargetCloseTarget{TargetID: e.TargetInfo.TargetID}.Call(in.rb.Context(ctx))
				cancel()
			}
		case "Target.targetCrashed":
			var e proto.TargetTargetCrashed
			if load(msg, &e) {
				if j := in.job(e.TargetID); j != nil {
					in.onCrash(in)
					j.crash()
				}
			}
		}
	}
}

// stranger reports whether a page is in a job's context but not the
// job's own page.
func (in *instance) stranger(t *proto.TargetTargetInfo) bool {
	in.pagesMu.Lock()
	defer in.pagesMu.Unlock()
	return in.contexts[t.BrowserContextID] && in.pages[t.TargetID] == nil
}

// job returns the job that owns a page. Registration happens under
// pagesMu together with the page's creation, so the loop never mistakes
// a job's own page for a stranger.
func (in *instance) job(id proto.TargetTargetID) *Job {
	in.pagesMu.Lock()
	defer in.pagesMu.Unlock()
	return in.pages[id]
}

// spareWait bounds a job's wait for the spare page being opened, before
// it opens a page of its own.
const spareWait = time.Second

// takeSpare hands over the spare page: the one that is ready, or the one
// being opened once it is, within spareWait and while ctx lasts. It
// returns nil when there is none.
func (in *instance) takeSpare(ctx context.Context) *Job {
	in.spareMu.Lock()
	j, coming := in.spare, in.preparing
	in.spare = nil
	in.spareMu.Unlock()
	if j != nil || coming == nil {
		return j
	}
	t := time.NewTimer(spareWait)
	defer t.Stop()
	select {
	case <-coming:
	case <-t.C:
		return nil
	case <-ctx.Done():
		return nil
	}
	in.spareMu.Lock()
	defer in.spareMu.Unlock()
	j, in.spare = in.spare, nil
	return j
}

// prepareSpare opens a blank page for the next job unless there is one,
// one is on its way, or the browser is closing; done is called when it is
// settled. The page lives on ctx's values, not its deadline.
func (in *instance) prepareSpare(ctx context.Context, g netx.Network, done func()) bool {
	in.spareMu.Lock()
	if in.spare != nil || in.preparing != nil || in.closed {
		in.spareMu.Unlock()
		return false
	}
	in.preparing = make(chan struct{})
	in.spareMu.Unlock()
	go func() {
		defer done()
		// The spare is the next job's: none of its time goes on the span
		// of the job that prepares it.
		ctx := trace.ContextWithSpan(context.WithoutCancel(ctx), noop.Span{})
		j, err := in.open(ctx, g, nil)
		if err == nil {
			// As the default device, which most jobs ask for: the job
			// that adopts it then has nothing to change. Then its
			// renderer is warmed up.
			if err = j.emulate(ctx, in.version); err == nil {
				err = j.warm(ctx)
			}
			if err != nil {
				j.close(ctx)
			}
		}
		in.spareMu.Lock()
		defer in.spareMu.Unlock()
		close(in.preparing)
		in.preparing = nil
		switch {
		case err != nil:
		case in.closed:
			j.discard()
		default:
			in.spare = j
		}
	}()
	return true
}

// close disconnects and, for a launched browser, stops it and removes
// what it left.
func (in *instance) close() {
	in.closeOnce.Do(func() {
		in.spareMu.Lock()
		in.closed = true
		spare := in.spare
		in.spare = nil
		in.spareMu.Unlock()
		if in.ws != nil {
			in.ws.Close()
			<-in.loopDone
		}
		if spare != nil {
			// Its context went with the connection (DisposeOnDetach) or
			// goes with the browser.
			spare.discard()
		}
		if in.proc != nil {
			in.proc.Close()
		}
		if in.deny != nil {
			in.deny.Close()
		}
	})
}

// load decodes an event, treating one that does not decode as another
// event rather than letting rod panic.
func load(msg *rod.Message, e proto.Event) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return msg.Load(e)
}

// watchedWS closes dead when the DevTools connection stops reading.
type watchedWS struct {
	*cdp.WebSocket
	once sync.Once
	dead chan struct{}
}

func (w *watchedWS) Read() ([]byte, error) {
	b, err := w.WebSocket.Read()
	if err != nil {
		w.once.Do(func() { close(w.dead) })
	}
	return b, err
}

// handshakeDialer dials the DevTools WebSocket, conn, and closes it when
// ctx ends before stop is called: the WebSocket handshake reads the
// response with no deadline of its own, and rod's TLS dialer ignores ctx.
type handshakeDialer struct {
	tls  bool
	conn net.Conn
	stop func() bool
}

func (d *handshakeDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		port := "80"
		if d.tls {
			port = "443"
		}
		addr = net.JoinHostPort(strings.Trim(addr, "[]"), port)
	}
	var c net.Conn
	var err error
	if d.tls {
		c, err = (&tls.Dialer{}).DialContext(ctx, network, addr)
	} else {
		c, err = (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	if err != nil {
		return nil, err
	}
	d.conn = c
	d.stop = context.AfterFunc(ctx, func() { c.Close() })
	return c, nil
}

// resolveRemote turns a remote browser's address into its DevTools
// WebSocket URL: a ws:// URL as is, an http:// one by asking
// /json/version. The endpoint is the operator's, reached directly.
func resolveRemote(ctx context.Context, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	switch u.Scheme {
	case "ws", "wss":
		return raw, nil
	case "http", "https":
	default:
		return "", fmt.Errorf("remote browser URL %q is not ws://, wss://, http:// or https://", raw)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/json/version"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	tr := &http.Transport{Proxy: nil}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var v struct {
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || v.WebSocketDebuggerURL == "" {
		return "", errors.New("remote browser did not give its DevTools URL")
	}
	return v.WebSocketDebuggerURL, nil
}
