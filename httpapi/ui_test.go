package httpapi_test

import (
	"context"
	"crypto/tls"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/sitediag/sitediag/blobstore"
	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/httpapi"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/certtest"
)

// TestUIStatic checks that the page and its assets are served with their
// types and the page's security headers, and that nothing is loaded from
// elsewhere.
func TestUIStatic(t *testing.T) {
	srv := httptest.NewServer(http.StripPrefix("/ui", httpapi.UI()))
	defer srv.Close()
	for path, wantType := range map[string]string{
		"/ui/":               "text/html; charset=utf-8",
		"/ui/ui.js":          "text/javascript; charset=utf-8",
		"/ui/ui.css":         "text/css; charset=utf-8",
		"/ui/observatory.js": "text/javascript; charset=utf-8",
	} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != wantType {
			t.Errorf("GET %s: %d %q, want 200 %q", path, resp.StatusCode, resp.Header.Get("Content-Type"), wantType)
		}
		if got := resp.Header.Get("Content-Security-Policy"); got != "default-src 'self'; img-src 'self' data: blob:; frame-ancestors 'none'" {
			t.Errorf("GET %s: CSP %q, want the one docs/security.md states", path, got)
		}
		if len(resp.Header.Get("X-Request-Id")) != 32 {
			t.Errorf("GET %s: X-Request-Id %q", path, resp.Header.Get("X-Request-Id"))
		}
		if m := regexp.MustCompile(`(src|href)="(https?:)?//|url\(|@import`).Find(body); m != nil {
			t.Errorf("%s refers to another origin", path)
		}
	}
}

// reportSite is the fixture the report page diagnoses: shop.test over
// TLS with a certificate 5 days from expiry, a redirect, a broken link
// and an image over plain HTTP from cdn.test, whose plain-HTTP server
// (returned too) serves a page of its own. metadata.test resolves to a
// refused address.
func reportSite(t *testing.T, api *apitest.API) (target string, plain *httptest.Server) {
	t.Helper()
	plain = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			io.WriteString(w, `<!doctype html><html lang="en"><title>Plain</title><h1>Plain HTTP</h1>`)
			return
		}
		w.Header().Set("Content-Type", "image/svg+xml")
		io.WriteString(w, `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`)
	}))
	t.Cleanup(plain.Close)
	site := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/old":
			http.Redirect(w, r, "/", http.StatusMovedPermanently)
		case "/missing":
			http.NotFound(w, r)
		case "/about":
			io.WriteString(w, "<!doctype html><title>About</title><p>about")
		default:
			w.Header().Set("Content-Type", "text/html")
			// Graded as the HTTP Observatory does: 100, CSP missing -25,
			// HSTS -20 (the self-signed certificate is not trusted); the
			// cookie's and Referrer-Policy's bonuses (+5 each) only count
			// from 90, so 55: C.
			w.Header().Set("Strict-Transport-Security", "max-age=31536000")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.Header().Set("X-Frame-Options", "DENY")
			w.Header().Set("Referrer-Policy", "strict-origin-when-cross-origin")
			w.Header().Set("Set-Cookie", "sessionid=1; Secure; HttpOnly; SameSite=Lax")
			fmt.Fprintf(w, `<!doctype html><html lang="en"><title>Shop</title><meta name="description" content="The fixture shop.">`+
				`<body style="font:24px sans-serif;background:#fdf6e3">`+
				`<h1>The shop</h1><a href="/about">About</a> <a href="/missing">Missing</a>`+
				`<img src="http://cdn.test:%s/pixel.svg" alt="pixel">`, port(plain.URL))
		}
	}))
	site.TLS = &tls.Config{Certificates: []tls.Certificate{certtest.SelfSigned(t, pkix.Name{CommonName: "shop.test", Organization: []string{"Fixture Shop"}}, 5*24*time.Hour)}}
	site.Config.ErrorLog = log.New(io.Discard, "", 0) // the TLS scan's refused handshakes
	site.EnableHTTP2 = true
	site.StartTLS()
	t.Cleanup(site.Close)
	api.DNS.Add(t, "shop.test. 60 IN A 127.0.0.1", "shop.test. 60 IN MX 10 mail.shop.test.", "cdn.test. 60 IN A 127.0.0.1",
		"metadata.test. 60 IN A 169.254.169.254")
	return "https://shop.test:" + port(site.URL), plain
}

// apiCall is one API request the page made: its path and when it was
// being served.
type apiCall struct {
	path       string
	start, end time.Time
}

// callLog records the page's API requests.
type callLog struct {
	mu    sync.Mutex
	calls []apiCall
}

func (l *callLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start, path := time.Now(), r.URL.Path
		h.ServeHTTP(w, r)
		if r.Method == http.MethodPost {
			l.mu.Lock()
			l.calls = append(l.calls, apiCall{path, start, time.Now()})
			l.mu.Unlock()
		}
	})
}

// take returns the calls recorded so far and forgets them.
func (l *callLog) take() []apiCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	calls := l.calls
	l.calls = nil
	return calls
}

// reportServer serves the page at /ui/ beside the API, as the example
// server does, except that /lighthouse answers 404 like a server without
// it; the log records the API requests.
func reportServer(t *testing.T, api *apitest.API) (*httptest.Server, *callLog) {
	t.Helper()
	store, err := blobstore.OpenDir(t.TempDir(), blobstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	h := httpapi.New(api.Client, httpapi.Options{APIKeys: []string{apitest.Key}, RateLimit: -1, Artifacts: store,
		Logger: slog.New(slog.DiscardHandler)})
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.Handle("/ui/", http.StripPrefix("/ui", httpapi.UI()))
	mux.Handle("/lighthouse", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.URL.Path = "/no-lighthouse-here"
		h.ServeHTTP(w, r)
	}))
	log := &callLog{}
	srv := httptest.NewServer(log.wrap(mux))
	t.Cleanup(srv.Close)
	return srv, log
}

// artifactDir is where tests leave files for a reviewer:
// $SITEDIAG_ARTIFACT_DIR, or testdata/out (git-ignored).
func artifactDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SITEDIAG_ARTIFACT_DIR")
	if dir == "" {
		dir = filepath.Join("testdata", "out")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestUIReport drives the report page in Chromium: it types the key and
// the fixture site, waits for every section, checks what each shows,
// saves screenshots (desktop and phone widths), then diagnoses a name
// that does not resolve and checks that each section says why in words.
func TestUIReport(t *testing.T) {
	needChromium(t)
	api := apitest.New(t, apitest.Options{})
	target, plain := reportSite(t, api)
	srv, calls := reportServer(t, api)
	// Start the API's Chromium first: the driver's requests go through
	// its job proxy, which gives up on a response after 30 s, and a cold
	// start on a loaded machine can take that long.
	api.Post(t, "/screenshot", map[string]any{"url": target + "/about"}).WantSuccess(t)

	openInChromium(t, srv.URL+"/ui/", 600*time.Second, func(ctx context.Context, j *browser.Job) error {
		p := &uiPage{t: t, j: j}
		p.submit(ctx, "#key", apitest.Key)
		if got := p.text(ctx, "sessionStorage.getItem('sitediag.apiKey')"); got != apitest.Key {
			t.Errorf("session storage holds %q, want the key", got)
		}
		p.click(ctx, ".more summary")
		p.fill(ctx, "#ports", port(target))
		calls.take()
		p.submit(ctx, "#target", strings.TrimPrefix(target, "https://")+"/old")
		p.waitDone(ctx)
		checkCallOrder(t, calls.take())

		sections := p.sections(ctx)
		want := map[string]struct {
			state string
			has   []string
		}{
			"screenshot": {"done", []string{"as Chromium rendered it"}},
			"up":         {"done", []string{"Up: Site is up (200 OK)", "301", target + "/old", target + "/"}},
			"tls":        {"done", []string{"days left (renew now)", "TLS 1.3yes", "SSL 3.0no", "Fixture Shop", "Not vulnerable to any of", "Grade ", "Client simulation", "Chromium 156"}},
			"dns":        {"done", []string{"127.0.0.1", "10 mail.shop.test", "DNSSEC: bogus for zone shop.test"}},
			"timing":     {"done", []string{"Redirects", "DNS", "Connect", "TLS", "Wait", "Download", "Total"}},
			"protocols":  {"done", []string{"HTTP/1.1yes", "HTTP/2yes"}},
			"ports":      {"done", []string{port(target)}},
			"links":      {"done", []string{"Found 1 broken link out of 3.", "404", target + "/missing"}},
			"headers": {"done", []string{"Grade C, score 55", "bonuses count only from 90", "Content-Security-Policymissing-25",
				"Strict-Transport-Securitycannot count: the certificate is not trusted-20", "CookiesSecure, HttpOnly sessions, SameSite+5",
				"X-Frame-OptionsDENY0", "Referrer-Policystrict-origin-when-cross-origin+5",
				"Cross-Origin-Resource-Policymissing0", "Permissions-Policymissingnot scored"}},
			"meta":       {"done", []string{"Title\nShop", "Description\nThe fixture shop.", "Language\nen"}},
			"mixed":      {"done", []string{"Mixed content(s) found.", "/pixel.svg"}},
			"lighthouse": {"unavailable", []string{"Not available on this server."}},
		}
		for op, w := range want {
			s := sections[op]
			if s.State != w.state {
				t.Errorf("section %s is %q, want %q: %s", op, s.State, w.state, s.Text)
			}
			for _, has := range w.has {
				if !strings.Contains(s.Text, has) {
					t.Errorf("section %s lacks %q: %s", op, has, s.Text)
				}
			}
			if op != "lighthouse" && s.Raw == 0 {
				t.Errorf("section %s links to no raw JSON", op)
			}
		}
		if got := p.text(ctx, `document.querySelector('#sec-tls .verdict').className`); !strings.Contains(got, "bad") {
			t.Errorf("a certificate 5 days from expiry is shown as %q, want red (bad)", got)
		}
		if got := p.text(ctx, `String(document.querySelector('#sec-screenshot img').naturalWidth)`); got == "0" || got == "" {
			t.Errorf("the screenshot did not load (naturalWidth %s)", got)
		}
		if got := p.text(ctx, `String(document.querySelectorAll('#sec-timing .bar').length)`); got != "7" {
			t.Errorf("waterfall has %s bars, want 7", got)
		}
		summary := p.text(ctx, `document.getElementById('summary').innerText`)
		for _, has := range []string{"Reachable\nyes (200 OK)", "TLS grade\nT", "Certificate\n4 days left", "DNSSEC\nbogus",
			"Security headers\nC (55/100)", "Broken links\n1 broken", "Lighthouse\nnot available on this server"} {
			if !strings.Contains(summary, has) {
				t.Errorf("summary lacks %q: %s", has, summary)
			}
		}
		if got := p.text(ctx, `[...document.querySelectorAll('#summary a')].map((a) => a.getAttribute('href')).join(' ')`); got !=
			"#sec-up #sec-tls #sec-tls #sec-dns #sec-headers #sec-links #sec-lighthouse" {
			t.Errorf("summary links to %q", got)
		}
		if got := p.text(ctx, `location.search`); got != "?url="+url.QueryEscape(strings.TrimPrefix(target, "https://")+"/old") {
			t.Errorf("the page's address is %q, want it to share the report", got)
		}
		// The download: every call the report made, with its answer.
		p.text(ctx, `(() => {
			const click = HTMLAnchorElement.prototype.click, blob = URL.createObjectURL;
			HTMLAnchorElement.prototype.click = function () { window.savedName = this.download; };
			URL.createObjectURL = (b) => { window.savedBlob = b; return blob.call(URL, b); };
			document.getElementById('download').click();
			HTMLAnchorElement.prototype.click = click;
			URL.createObjectURL = blob;
			return '';
		})()`)
		var saved struct {
			Target string
			Calls  []struct {
				Path     string
				Response struct{ APIStatus string }
			}
		}
		if err := json.Unmarshal([]byte(p.text(ctx, `window.savedBlob.text()`)), &saved); err != nil {
			t.Fatalf("the downloaded report: %v", err)
		}
		if name := p.text(ctx, `window.savedName`); name != "sitediag-shop.test.json" || saved.Target != target+"/old" || len(saved.Calls) != 14 {
			t.Errorf("the downloaded report %s: target %s, %d calls, want 14: %+v", name, saved.Target, len(saved.Calls), saved.Calls)
		}
		dir := artifactDir(t)
		p.screenshot(ctx, filepath.Join(dir, "ui-report.png"), 1280)
		p.screenshot(ctx, filepath.Join(dir, "ui-report-phone.png"), 390)
		for _, width := range []int{1280, 390} {
			device := map[int]string{1280: "desktop", 390: "phone"}[width]
			p.screenshotOf(ctx, "#summary", filepath.Join(dir, "report-summary-"+device+".png"), width)
			p.screenshotOf(ctx, "#sec-headers", filepath.Join(dir, "report-headers-"+device+".png"), width)
		}
		p.resize(ctx, 1280)

		// A name that does not resolve: every section fails, in words, on
		// its own.
		p.submit(ctx, "#target", "https://nowhere.test/")
		p.waitDone(ctx)
		for op, s := range p.sections(ctx) {
			switch op {
			case "lighthouse":
			case "up": // /up's answer is a finding: down
				if s.State != "partial" || !strings.Contains(s.Text, "Down: Unable to reach the URL.") ||
					!strings.Contains(s.Text, "/redirectcheck failed: https://nowhere.test/: name not resolved (UNABLE_TO_CONNECT, HTTP 422)") {
					t.Errorf("unresolvable target: section up is %q: %s", s.State, s.Text)
				}
			case "dns": // so is the DNS's: NXDOMAIN
				if s.State != "done" || !strings.Contains(s.Text, "No records found (NXDOMAIN).") {
					t.Errorf("unresolvable target: section dns is %q: %s", s.State, s.Text)
				}
			default:
				if s.State != "failed" || !strings.Contains(s.Text, "failed: ") || !strings.Contains(s.Text, "HTTP ") {
					t.Errorf("unresolvable target: section %s is %q: %s", op, s.State, s.Text)
				}
			}
		}

		// A wrong key: said once for the page, and nothing runs.
		p.text(ctx, `(sessionStorage.setItem('sitediag.apiKey', 'wrong'), '')`)
		p.submit(ctx, "#target", strings.TrimPrefix(target, "https://"))
		p.waitDone(ctx)
		p.wantStopped(ctx, "wrong key", "The API key was refused.")
		if got := p.text(ctx, `String(document.getElementById('key-form').hidden)`); got != "false" {
			t.Error("wrong key: the key form is not shown again")
		}
		p.submit(ctx, "#key", apitest.Key)

		// A refused target: said once, with the setting that exempts it.
		p.submit(ctx, "#target", "http://metadata.test/")
		p.waitDone(ctx)
		p.wantStopped(ctx, "refused target", "SITEDIAG_ALLOW_NETWORKS")

		// A plain-HTTP port: no TLS there, and 443 looked at instead.
		p.submit(ctx, "#target", "http://shop.test:"+port(plain.URL)+"/")
		p.waitDone(ctx)
		tlsText := p.sections(ctx)["tls"].Text
		want443 := "Port 443 is closed: the host serves no HTTPS."
		if c, err := net.DialTimeout("tcp", "127.0.0.1:443", time.Second); err == nil {
			c.Close()
			want443 = "Port 443 is open, so it is scanned below."
		}
		if !strings.Contains(tlsText, "No TLS on port "+port(plain.URL)+": the target is plain HTTP.") || !strings.Contains(tlsText, want443) {
			t.Errorf("plain-HTTP port: section tls: %s", tlsText)
		}
		if strings.Contains(tlsText, "failed") {
			t.Errorf("plain-HTTP port: the TLS section shows a failure: %s", tlsText)
		}

		// An IP address, from a shared address: the name-only sections are
		// skipped, and the report starts by itself.
		if _, err := j.Load(ctx, srv.URL+"/ui/?url="+url.QueryEscape("http://127.0.0.1:"+port(plain.URL)+"/"), browser.LoadOptions{}); err != nil {
			return err
		}
		p.waitDone(ctx)
		ip := p.sections(ctx)
		if s := ip["dns"]; s.State != "skipped" || !strings.Contains(s.Text, "127.0.0.1 is an address") || strings.Contains(s.Text, "NXDOMAIN") {
			t.Errorf("IP target: section dns is %q: %s", s.State, s.Text)
		}
		if s := ip["up"]; s.State != "done" || !strings.Contains(s.Text, "Up: Site is up") {
			t.Errorf("IP target: section up is %q: %s", s.State, s.Text)
		}
		if got := p.text(ctx, `document.querySelector('#summary [data-key=dnssec]').innerText`); got != "not applicable" {
			t.Errorf("IP target: summary DNSSEC %q", got)
		}
		return nil
	})
}

// checkCallOrder checks the order the page asks in: /up first, alone;
// /loadtime alone, so that it measures the site and not our own load;
// the browser operations once every network probe has been answered, and
// /lighthouse last.
func checkCallOrder(t *testing.T, calls []apiCall) {
	t.Helper()
	by := map[string]apiCall{}
	for _, c := range calls {
		by[c.path] = c
	}
	network := []string{"/redirectcheck", "/tlsscan", "/httpheader", "/dnsrecord", "/dnssec", "/httpprotocol", "/openport",
		"/brokenlink", "/metascraping"}
	for _, path := range append([]string{"/up", "/loadtime", "/screenshot", "/mixedcontent", "/lighthouse"}, network...) {
		if _, ok := by[path]; !ok {
			t.Fatalf("the page did not call %s (calls: %v)", path, calls)
		}
	}
	for _, alone := range []string{"/up", "/loadtime"} {
		a := by[alone]
		for _, c := range calls {
			if c.path != alone && c.start.Before(a.end) && a.start.Before(c.end) {
				t.Errorf("%s ran beside %s", alone, c.path)
			}
		}
	}
	for _, browserOp := range []string{"/screenshot", "/mixedcontent", "/lighthouse"} {
		for _, probe := range network {
			if by[browserOp].start.Before(by[probe].end) {
				t.Errorf("%s started before %s was answered", browserOp, probe)
			}
		}
	}
	for _, browserOp := range []string{"/screenshot", "/mixedcontent"} {
		if by["/lighthouse"].start.Before(by[browserOp].end) {
			t.Errorf("/lighthouse started before %s was answered", browserOp)
		}
	}
}

// uiPage drives the report page of a browser job.
type uiPage struct {
	t *testing.T
	j *browser.Job
}

type uiSection struct {
	State string
	Text  string
	Raw   int
}

// text evaluates a JavaScript expression and returns it as a string.
func (p *uiPage) text(ctx context.Context, expr string) string {
	p.t.Helper()
	out, err := p.j.Eval(ctx, "() => "+expr)
	if err != nil {
		p.t.Fatalf("eval %s: %v", expr, err)
	}
	var s string
	json.Unmarshal(out, &s)
	return s
}

// submit types value into the input and presses Enter, as a person
// would.
func (p *uiPage) submit(ctx context.Context, input, value string) {
	p.t.Helper()
	el := p.fill(ctx, input, value)
	if err := el.Type('\r'); err != nil {
		p.t.Fatalf("pressing Enter in %s: %v", input, err)
	}
}

// fill replaces the text of the input with value.
func (p *uiPage) fill(ctx context.Context, input, value string) *rod.Element {
	p.t.Helper()
	el, err := p.j.Page(ctx).Element(input)
	if err == nil {
		err = el.SelectAllText()
	}
	if err == nil {
		err = el.Input(value)
	}
	if err != nil {
		p.t.Fatalf("typing into %s: %v", input, err)
	}
	return el
}

// click clicks the element.
func (p *uiPage) click(ctx context.Context, selector string) {
	p.t.Helper()
	el, err := p.j.Page(ctx).Element(selector)
	if err == nil {
		err = el.Click(proto.InputMouseButtonLeft, 1)
	}
	if err != nil {
		p.t.Fatalf("clicking %s: %v", selector, err)
	}
}

// waitDone waits until the page says every section is done, or that the
// report stopped.
func (p *uiPage) waitDone(ctx context.Context) {
	p.t.Helper()
	for {
		if s := p.text(ctx, `document.getElementById('overall').textContent`); strings.HasPrefix(s, "All ") || s == "Stopped." {
			return
		}
		select {
		case <-ctx.Done():
			p.t.Fatalf("the report did not finish: %s", p.text(context.Background(), `document.getElementById('overall').textContent`))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// wantStopped checks that the report stopped with one message holding
// words, shown once on the whole page, and that no section ran.
func (p *uiPage) wantStopped(ctx context.Context, what, words string) {
	p.t.Helper()
	if got := p.text(ctx, `document.getElementById('overall').textContent`); got != "Stopped." {
		p.t.Errorf("%s: overall line %q, want Stopped.", what, got)
	}
	body := p.text(ctx, `document.body.innerText`)
	if n := strings.Count(body, words); n != 1 {
		p.t.Errorf("%s: %q shown %d times, want once: %s", what, words, n, body)
	}
	if !strings.Contains(p.text(ctx, `document.getElementById('page-error').innerText`), words) {
		p.t.Errorf("%s: the page's error does not say %q", what, words)
	}
	for op, s := range p.sections(ctx) {
		if s.State != "notrun" || strings.Contains(s.Text, "failed") {
			p.t.Errorf("%s: section %s is %q: %s", what, op, s.State, s.Text)
		}
	}
}

func (p *uiPage) sections(ctx context.Context) map[string]uiSection {
	p.t.Helper()
	raw := p.text(ctx, `JSON.stringify(Object.fromEntries([...document.querySelectorAll('section[data-op]')].map((s) =>
		[s.dataset.op, {State: s.dataset.state, Text: s.innerText.replace(/\t/g, ''), Raw: s.querySelectorAll('details pre').length}])))`)
	out := map[string]uiSection{}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		p.t.Fatalf("sections: %v: %s", err, raw)
	}
	return out
}

// resize sets the viewport's width (a phone's below 600 px).
func (p *uiPage) resize(ctx context.Context, width int) {
	p.t.Helper()
	err := proto.EmulationSetDeviceMetricsOverride{Width: width, Height: 900, DeviceScaleFactor: 1, Mobile: width < 600}.Call(p.j.Page(ctx))
	if err != nil {
		p.t.Fatalf("resize: %v", err)
	}
	time.Sleep(300 * time.Millisecond) // let the layout settle at the new width
}

// screenshotOf saves one element at the given viewport width.
func (p *uiPage) screenshotOf(ctx context.Context, selector, path string, width int) {
	p.t.Helper()
	p.resize(ctx, width)
	var box struct{ X, Y, Width, Height float64 }
	if err := json.Unmarshal([]byte(p.text(ctx, `JSON.stringify((() => { const r = document.querySelector('`+selector+`').getBoundingClientRect();
		return { X: r.left + scrollX, Y: r.top + scrollY, Width: r.width, Height: r.height }; })())`)), &box); err != nil {
		p.t.Fatalf("box of %s: %v", selector, err)
	}
	shot, err := proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng, CaptureBeyondViewport: true,
		Clip: &proto.PageViewport{X: box.X, Y: box.Y, Width: box.Width, Height: box.Height, Scale: 1}}.Call(p.j.Page(ctx))
	if err == nil {
		err = os.WriteFile(path, shot.Data, 0o644)
	}
	if err != nil {
		p.t.Fatalf("screenshot of %s: %v", selector, err)
	}
	abs, _ := filepath.Abs(path)
	p.t.Logf("%s (%d px wide): %s", selector, width, abs)
}

// screenshot saves the whole page at the given viewport width.
func (p *uiPage) screenshot(ctx context.Context, path string, width int) {
	p.t.Helper()
	page := p.j.Page(ctx)
	err := proto.EmulationSetDeviceMetricsOverride{Width: width, Height: 900, DeviceScaleFactor: 1, Mobile: width < 600}.Call(page)
	var png []byte
	if err == nil {
		time.Sleep(300 * time.Millisecond) // let the layout settle at the new width
		png, err = page.Screenshot(true, &proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng})
	}
	if err == nil {
		err = os.WriteFile(path, png, 0o644)
	}
	if err != nil {
		p.t.Fatalf("screenshot: %v", err)
	}
	abs, _ := filepath.Abs(path)
	p.t.Logf("report page screenshot (%d px wide): %s", width, abs)
}
