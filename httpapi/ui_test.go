package httpapi_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/httpapi"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/guardnet"
	"github.com/sitediag/sitediag/internal/guardtest"
)

// TestUIStatic checks that the page and its assets are served with their
// types and the page's security headers, and that nothing is loaded from
// elsewhere.
func TestUIStatic(t *testing.T) {
	srv := httptest.NewServer(http.StripPrefix("/ui", httpapi.UI()))
	defer srv.Close()
	for path, wantType := range map[string]string{
		"/ui/":       "text/html; charset=utf-8",
		"/ui/ui.js":  "text/javascript; charset=utf-8",
		"/ui/ui.css": "text/css; charset=utf-8",
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
		if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'self'") {
			t.Errorf("GET %s: CSP %q", path, resp.Header.Get("Content-Security-Policy"))
		}
		if m := regexp.MustCompile(`(src|href)="(https?:)?//|url\(|@import`).Find(body); m != nil {
			t.Errorf("%s refers to another origin", path)
		}
	}
}

// reportSite is the fixture the report page diagnoses: shop.test over
// TLS with a certificate 5 days from expiry, a redirect, a broken link
// and an image over plain HTTP from cdn.test.
func reportSite(t *testing.T, api *apitest.API) string {
	t.Helper()
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
			fmt.Fprintf(w, `<!doctype html><title>Shop</title><body style="font:24px sans-serif;background:#fdf6e3">`+
				`<h1>The shop</h1><a href="/about">About</a> <a href="/missing">Missing</a>`+
				`<img src="http://cdn.test:%s/pixel.svg" alt="pixel">`, port(plain.URL))
		}
	}))
	site.TLS = &tls.Config{Certificates: []tls.Certificate{shortCert(t, 5*24*time.Hour)}}
	site.Config.ErrorLog = log.New(io.Discard, "", 0) // the TLS scan's refused handshakes
	site.EnableHTTP2 = true
	site.StartTLS()
	t.Cleanup(site.Close)
	api.DNS.Add(t, "shop.test. 60 IN A 127.0.0.1", "shop.test. 60 IN MX 10 mail.shop.test.", "cdn.test. 60 IN A 127.0.0.1")
	return "https://shop.test:" + port(site.URL)
}

// shortCert is a self-signed certificate for shop.test that expires in
// valid.
func shortCert(t *testing.T, valid time.Duration) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(18),
		Subject:      pkix.Name{CommonName: "shop.test", Organization: []string{"Fixture Shop"}},
		DNSNames:     []string{"shop.test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(valid),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// reportServer serves the page at /ui/ beside the API, as the example
// server does, except that /lighthouse answers 404 like a server without
// it.
func reportServer(t *testing.T, api *apitest.API) *httptest.Server {
	t.Helper()
	store, err := httpapi.NewLocalStore(t.TempDir(), 0)
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
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
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
	target := reportSite(t, api)
	srv := reportServer(t, api)
	// Start the API's Chromium first: the driver's requests go through
	// its job proxy, which gives up on a response after 30 s, and a cold
	// start on a loaded machine can take that long.
	api.Post(t, "/screenshot", map[string]any{"url": target + "/about"}).WantSuccess(t)

	driver, err := browser.New(browser.Config{Network: guardnet.Network(guardtest.New(t)), JobTimeout: 150 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer driver.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 170*time.Second)
	defer cancel()

	err = driver.Do(ctx, browser.JobOptions{Width: 1280, Height: 900}, func(ctx context.Context, j *browser.Job) error {
		if _, err := j.Load(ctx, srv.URL+"/ui/", browser.LoadOptions{}); err != nil {
			return err
		}
		p := &uiPage{t: t, j: j}
		p.submit(ctx, "#key", apitest.Key)
		if got := p.text(ctx, "sessionStorage.getItem('sitediag.apiKey')"); got != apitest.Key {
			t.Errorf("session storage holds %q, want the key", got)
		}
		p.click(ctx, ".more summary")
		p.fill(ctx, "#ports", port(target))
		p.submit(ctx, "#target", strings.TrimPrefix(target, "https://")+"/old")
		p.waitDone(ctx)

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
		dir := artifactDir(t)
		p.screenshot(ctx, filepath.Join(dir, "ui-report.png"), 1280)
		p.screenshot(ctx, filepath.Join(dir, "ui-report-phone.png"), 390)

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
		return nil
	})
	if err != nil {
		t.Fatal(err)
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

// waitDone waits until the page says every section is done.
func (p *uiPage) waitDone(ctx context.Context) {
	p.t.Helper()
	for {
		if strings.HasPrefix(p.text(ctx, `document.getElementById('overall').textContent`), "All ") {
			return
		}
		select {
		case <-ctx.Done():
			p.t.Fatalf("the report did not finish: %s", p.text(context.Background(), `document.getElementById('overall').textContent`))
		case <-time.After(200 * time.Millisecond):
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
