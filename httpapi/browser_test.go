package httpapi_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/porttest"
	"github.com/sitediag/sitediag/internal/procs"
	"github.com/sitediag/sitediag/internal/proxytest"
	"github.com/sitediag/sitediag/internal/testenv"
)

func needChromium(t *testing.T) {
	t.Helper()
	_, err := browser.Find(os.Getenv("SITEDIAG_CHROME_PATH"))
	testenv.Need(t, err == nil, "needs Chromium (apt-get install chromium)")
}

// pages is a fixture site on 127.0.0.1, known as site.test.
type pages struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hook map[string]http.HandlerFunc
}

func startPages(t *testing.T, api *apitest.API) *pages {
	t.Helper()
	p := &pages{hook: map[string]http.HandlerFunc{}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		h := p.hook[r.URL.Path]
		p.mu.Unlock()
		if h != nil {
			h(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><body style="margin:0;background:#0f0"><div style="height:2000px"></div>`+
			`<div id="box" style="position:absolute;left:10px;top:20px;width:120px;height:80px;background:#f00"></div>`)
	}))
	t.Cleanup(p.srv.Close)
	api.DNS.Add(t, "site.test. 60 IN A 127.0.0.1")
	return p
}

func (p *pages) url(path string) string {
	_, port, _ := net.SplitHostPort(p.srv.Listener.Addr().String())
	return "http://site.test:" + port + path
}

func (p *pages) handle(path string, h http.HandlerFunc) {
	p.mu.Lock()
	p.hook[path] = h
	p.mu.Unlock()
}

// fetchArtifact gets the artifact a success envelope's data links to.
func fetchArtifact(t *testing.T, api *apitest.API, data any, wantType string) []byte {
	t.Helper()
	link, _ := data.(string)
	if !strings.HasPrefix(link, api.Server.URL+"/artifacts/") {
		t.Fatalf("data is %v, want an artifact URL on %s", data, api.Server.URL)
	}
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != wantType {
		t.Fatalf("GET %s: %d %s, want 200 %s", link, resp.StatusCode, resp.Header.Get("Content-Type"), wantType)
	}
	return body
}

func imageSize(t *testing.T, data []byte) (string, int, int) {
	t.Helper()
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("artifact is not an image: %v", err)
	}
	return format, cfg.Width, cfg.Height
}

func wantMeta(t *testing.T, meta map[string]any, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if fmt.Sprint(meta[k]) != fmt.Sprint(v) {
			t.Errorf("meta.%s = %v, want %v", k, meta[k], v)
		}
	}
}

// killBrowser kills the Chromium main processes this test process
// started (children of its leakless guards), by PID.
func killBrowser(t *testing.T) {
	t.Helper()
	for _, guard := range procs.ChildrenOf(os.Getpid()) {
		for _, pid := range procs.ChildrenOf(guard) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func TestScreenshotAPI(t *testing.T) {
	needChromium(t)
	api := apitest.New(t, apitest.Options{})
	site := startPages(t, api)

	t.Run("envelope, artifact and inline image", func(t *testing.T) {
		resp := api.Post(t, "/screenshot", map[string]any{
			"url": site.url("/"), "type": "jpeg", "viewportWidth": 800, "viewportHeight": 600,
			"quality": 70, "inline": true, "theme": "dark", "delay": 0.2,
		})
		meta, data := resp.WantSuccess(t)
		wantMeta(t, meta, map[string]any{
			"url": site.url("/"), "type": "jpeg", "device": "desktop", "fullPage": false, "blockAds": true,
			"hideCookie": true, "skipCaptcha": true, "addTimestamp": false, "viewportWidth": 800,
			"viewportHeight": 600, "theme": "dark", "quality": 70, "scaleFactor": 1, "delay": 0.2,
			"captureBeyondViewport": true, "inline": true, "blockedRequests": 0,
		})
		img := fetchArtifact(t, api, data, "image/jpeg")
		if f, w, h := imageSize(t, img); f != "jpeg" || w != 800 || h != 600 {
			t.Errorf("artifact is a %d×%d %s, want an 800×600 jpeg", w, h, f)
		}
		inline, _ := resp.Envelope["inline"].(map[string]any)
		b64, _ := inline["base64"].(string)
		if raw, err := base64.StdEncoding.DecodeString(b64); err != nil || !bytes.Equal(raw, img) {
			t.Errorf("inline.base64 is not the artifact (%v)", err)
		}
		if uri, _ := inline["dataUri"].(string); uri != "data:image/jpeg;base64,"+b64 {
			t.Errorf("inline.dataUri = %.40q…", uri)
		}
	})

	t.Run("full page, element and mobile", func(t *testing.T) {
		for _, tc := range []struct {
			body        map[string]any
			format      string
			w, h        int
			selectorHit any
		}{
			{map[string]any{"fullPage": true}, "png", 1366, 2000, nil},
			{map[string]any{"selector": "#box", "type": "png"}, "png", 120, 80, true},
			{map[string]any{"selector": "#nothing", "fallbackToFullPage": true}, "png", 1366, 2000, false},
			{map[string]any{"device": "mobile"}, "png", 1170, 2532, nil},
			{map[string]any{"device": "Mobile", "type": "PNG"}, "png", 1170, 2532, nil}, // enumerations in any case
			{map[string]any{"pageHeight": 1000, "scaleFactor": 0.5}, "png", 683, 500, nil},
		} {
			tc.body["url"] = site.url("/")
			meta, data := api.Post(t, "/screenshot", tc.body).WantSuccess(t)
			format, w, h := imageSize(t, fetchArtifact(t, api, data, "image/png"))
			if format != tc.format || w != tc.w || h != tc.h {
				t.Errorf("%v: %d×%d %s, want %d×%d %s", tc.body, w, h, format, tc.w, tc.h, tc.format)
			}
			if tc.selectorHit != nil && meta["selectorFound"] != tc.selectorHit {
				t.Errorf("%v: meta.selectorFound = %v, want %v", tc.body, meta["selectorFound"], tc.selectorHit)
			}
		}
	})

	t.Run("refused sub-resources are counted, not fatal", func(t *testing.T) {
		site.handle("/leaky", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `<!doctype html><img src="http://127.0.0.2:8081/a.png"><img src="http://10.0.0.1/b.png">`)
		})
		meta, _ := api.Post(t, "/screenshot", map[string]any{"url": site.url("/leaky")}).WantSuccess(t)
		if n, _ := meta["blockedRequests"].(float64); n != 2 {
			t.Errorf("meta.blockedRequests = %v, want 2", meta["blockedRequests"])
		}
	})

	t.Run("invalid parameters", func(t *testing.T) {
		for _, body := range []map[string]any{
			{"viewportWidth": 100}, {"viewportHeight": 5000}, {"pageHeight": 50}, {"quality": 5},
			{"scaleFactor": 4}, {"delay": 11}, {"delay": -1}, {"type": "gif"}, {"theme": "sepia"},
			{"device": "tablet"}, {"unknown": true}, {"fullPage": "yes"}, {"selector": "#nothing"},
			{"selector": "div[["},
		} {
			body["url"] = site.url("/")
			api.Post(t, "/screenshot", body).WantError(t, http.StatusBadRequest, sitediag.CodeInvalidParameters)
		}
	})

}

// mediaBox returns the first page's size in points.
func mediaBox(t *testing.T, pdf []byte) (float64, float64) {
	t.Helper()
	m := regexp.MustCompile(`/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]`).FindSubmatch(pdf)
	if m == nil {
		t.Fatalf("no MediaBox in the PDF (%d bytes)", len(pdf))
	}
	w, _ := strconv.ParseFloat(string(m[1]), 64)
	h, _ := strconv.ParseFloat(string(m[2]), 64)
	return w, h
}

func TestURL2PDFAPI(t *testing.T) {
	needChromium(t)
	api := apitest.New(t, apitest.Options{})
	site := startPages(t, api)
	const mm = 72 / 25.4

	t.Run("envelope and paper", func(t *testing.T) {
		for _, tc := range []struct {
			body map[string]any
			meta map[string]any
			w, h float64
		}{
			{
				map[string]any{},
				map[string]any{"format": "a4", "orientation": "portrait", "scale": 1, "device": "desktop",
					"margin": map[string]any{"top": 10, "bottom": 10, "right": 10, "left": 10}},
				210 * mm, 297 * mm,
			},
			{
				map[string]any{"format": "a4", "orientation": "landscape", "margin": map[string]any{"top": 5}, "scale": 1.5},
				map[string]any{"format": "a4", "orientation": "landscape", "scale": 1.5,
					"margin": map[string]any{"top": 5, "bottom": 10, "right": 10, "left": 10}},
				297 * mm, 210 * mm,
			},
			{
				// Enumerations are read in any case.
				map[string]any{"format": "A4", "orientation": "Landscape"},
				map[string]any{"format": "a4", "orientation": "landscape"},
				297 * mm, 210 * mm,
			},
			{
				map[string]any{"format": "letter", "scale": 0.1, "addTimestamp": true, "hideCookie": true, "device": "mobile"},
				map[string]any{"format": "letter", "scale": 0.1, "addTimestamp": true, "hideCookie": true, "device": "mobile"},
				612, 792,
			},
		} {
			tc.body["url"] = site.url("/")
			meta, data := api.Post(t, "/url2pdf", tc.body).WantSuccess(t)
			tc.meta["url"] = site.url("/")
			wantMeta(t, meta, tc.meta)
			pdf := fetchArtifact(t, api, data, "application/pdf")
			if w, h := mediaBox(t, pdf); math.Abs(w-tc.w) > 1 || math.Abs(h-tc.h) > 1 {
				t.Errorf("%v: page is %.1f×%.1f pt, want %.1f×%.1f", tc.body, w, h, tc.w, tc.h)
			}
		}
	})

	t.Run("the request's paper wins over the page's @page", func(t *testing.T) {
		for _, tc := range []struct {
			css  string
			body map[string]any
			w, h float64
		}{
			{"size:A3", map[string]any{"format": "letter", "orientation": "landscape"}, 792, 612},
			{"size:landscape", map[string]any{"format": "a5", "orientation": "portrait"}, 148 * mm, 210 * mm},
		} {
			site.handle("/paged", func(w http.ResponseWriter, _ *http.Request) {
				io.WriteString(w, `<!doctype html><style>@page{`+tc.css+`}</style><h1>Paged</h1>`)
			})
			tc.body["url"] = site.url("/paged")
			meta, data := api.Post(t, "/url2pdf", tc.body).WantSuccess(t)
			wantMeta(t, meta, map[string]any{"format": tc.body["format"], "orientation": tc.body["orientation"]})
			if w, h := mediaBox(t, fetchArtifact(t, api, data, "application/pdf")); math.Abs(w-tc.w) > 1 || math.Abs(h-tc.h) > 1 {
				t.Errorf("@page{%s}, %v: page is %.1f×%.1f pt, want %.1f×%.1f", tc.css, tc.body, w, h, tc.w, tc.h)
			}
		}
	})

	t.Run("invalid parameters", func(t *testing.T) {
		for _, body := range []map[string]any{
			{"format": "b5"}, {"orientation": "sideways"}, {"scale": 0.05}, {"scale": 2.5}, {"scale": -1},
			{"margin": map[string]any{"top": -1}}, {"margin": map[string]any{"left": 150, "right": 150}},
			{"margin": map[string]any{"middle": 1}}, {"device": "watch"},
		} {
			body["url"] = site.url("/")
			api.Post(t, "/url2pdf", body).WantError(t, http.StatusBadRequest, sitediag.CodeInvalidParameters)
		}
	})

}

// TestBrowserOperationErrors checks the codes both operations share, the
// failure code of each included.
func TestBrowserOperationErrors(t *testing.T) {
	needChromium(t)
	api := apitest.New(t, apitest.Options{})
	site := startPages(t, api)
	site.handle("/hang", func(w http.ResponseWriter, r *http.Request) {
		killBrowser(t)
		<-r.Context().Done()
	})
	for _, op := range []struct {
		path   string
		failed sitediag.Code
	}{
		{"/screenshot", sitediag.CodeScreenshotFailed},
		{"/url2pdf", sitediag.CodePDFConversionFailed},
	} {
		t.Run(op.path, func(t *testing.T) {
			for _, tc := range []struct {
				body   map[string]any
				status int
				code   sitediag.Code
			}{
				{map[string]any{"url": "ftp://site.test/"}, http.StatusBadRequest, sitediag.CodeInvalidURL},
				{map[string]any{"url": "not a url"}, http.StatusBadRequest, sitediag.CodeInvalidURL},
				{map[string]any{"url": site.url("/"), "proxyCountry": "zz"}, http.StatusBadRequest, sitediag.CodeProxyCountryUnsupported},
				{map[string]any{"url": "http://127.0.0.2/"}, http.StatusForbidden, sitediag.CodeTargetNotAllowed},
				{map[string]any{"url": "http://10.1.2.3/"}, http.StatusForbidden, sitediag.CodeTargetNotAllowed},
				{map[string]any{"url": "http://missing.test/"}, http.StatusUnprocessableEntity, sitediag.CodeUnableToConnect},
				{map[string]any{"url": site.url("/hang")}, http.StatusInternalServerError, op.failed},
			} {
				api.Post(t, op.path, tc.body).WantError(t, tc.status, tc.code)
			}
			// The next job runs on a fresh browser.
			api.Post(t, op.path, map[string]any{"url": site.url("/")}).WantSuccess(t)
		})
	}
}

func TestBrowserThroughACountryProxy(t *testing.T) {
	needChromium(t)
	proxy := proxytest.StartConnect(t, proxytest.Options{})
	asked := func() int { return len(proxy.Targets()) }
	api := apitest.New(t, apitest.Options{Config: sitediag.Config{Proxies: map[string]*url.URL{"us": proxy.URL}}})
	site := startPages(t, api)
	for _, path := range []string{"/screenshot", "/url2pdf"} {
		before := asked()
		meta, _ := api.Post(t, path, map[string]any{"url": site.url("/"), "proxyCountry": "us"}).WantSuccess(t)
		if meta["proxyCountry"] != "us" || asked() == before {
			t.Errorf("%s: meta.proxyCountry %v, the country proxy was asked %d times; want us and some", path, meta["proxyCountry"], asked()-before)
		}
	}
	api.Post(t, "/screenshot", map[string]any{"url": "http://127.0.0.2/", "proxyCountry": "us"}).
		WantError(t, http.StatusForbidden, sitediag.CodeTargetNotAllowed)
}

func TestBrowserBusy(t *testing.T) {
	needChromium(t)
	api := apitest.New(t, apitest.Options{Config: sitediag.Config{MaxBrowserJobs: 1, MaxBrowserQueue: -1}})
	site := startPages(t, api)
	arrived, release := make(chan struct{}), make(chan struct{})
	site.handle("/slow", func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
		io.WriteString(w, "<!doctype html><p>slow")
	})
	done := make(chan *apitest.Response)
	go func() { done <- api.Post(t, "/url2pdf", map[string]any{"url": site.url("/slow")}) }()
	<-arrived
	for _, path := range []string{"/screenshot", "/url2pdf"} {
		resp := api.Post(t, path, map[string]any{"url": site.url("/")})
		resp.WantError(t, http.StatusServiceUnavailable, sitediag.CodeBusy)
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || s < 1 {
			t.Errorf("%s: Retry-After %q, want whole seconds ≥ 1", path, resp.Header.Get("Retry-After"))
		}
	}
	close(release)
	(<-done).WantSuccess(t)
}

func TestBrowserUnavailable(t *testing.T) {
	api := apitest.New(t, apitest.Options{Config: sitediag.Config{ChromePath: "/nonexistent/chromium"}})
	for _, path := range []string{"/screenshot", "/url2pdf"} {
		api.Post(t, path, map[string]any{"url": "http://site.test/"}).
			WantError(t, http.StatusServiceUnavailable, sitediag.CodeBrowserUnavailable)
	}
	resp := api.Do(t, http.MethodGet, "/health/service", nil, map[string]string{"x-api-key": apitest.Key})
	services, _ := resp.Envelope["services"].([]any)
	found := false
	for _, s := range services {
		svc, _ := s.(map[string]any)
		if svc["name"] == "browser" {
			found = true
			if svc["status"] != "down" || !strings.Contains(fmt.Sprint(svc["message"]), "not found") {
				t.Errorf("browser service is %v, want down, not found", svc)
			}
		}
	}
	if !found {
		t.Errorf("no browser service in %s", resp.Body)
	}
}

func TestBrowserHealthy(t *testing.T) {
	needChromium(t)
	api := apitest.New(t, apitest.Options{})
	resp := api.Do(t, http.MethodGet, "/health/service", nil, map[string]string{"x-api-key": apitest.Key})
	if !strings.Contains(string(resp.Body), `"name":"browser","status":"healthy"`) {
		t.Errorf("health: %s, want the browser healthy", resp.Body)
	}
}

// A page whose scripts never yield is no network failure: every browser
// operation stops its scripts at half its timeout, goes on with the page
// as it was, and says so.
func TestBrowserOperationsOnABusyPage(t *testing.T) {
	needChromium(t)
	api := apitest.New(t, apitest.Options{Config: sitediag.Config{}})
	site := startPages(t, api)
	site.handle("/busy", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><title>Busy</title><body style="margin:0;background:#f00">`+
			`<h1>Busy</h1><script>while(true){}</script><p>the rest</p>`)
	})
	// The browser's start counts against a job's deadline: start it first.
	api.Post(t, "/screenshot", map[string]any{"url": site.url("/")}).WantSuccess(t)
	for _, path := range []string{"/screenshot", "/url2pdf", "/metascraping", "/web-scraping", "/mixedcontent", "/brand"} {
		t.Run(path, func(t *testing.T) {
			began := time.Now()
			resp := api.Post(t, path, map[string]any{"url": site.url("/busy"), "timeout": 8})
			meta, _ := resp.WantSuccess(t)
			if took := time.Since(began); took > 10*time.Second {
				t.Errorf("took %s, want about the 8 s timeout at most", took)
			}
			if path == "/brand" {
				return // its meta is the spec's
			}
			wantMeta(t, meta, map[string]any{"timeout": 8, "scriptsStopped": true, "loadTimedOut": true})
			if msg, _ := resp.Envelope["message"].(string); path != "/mixedcontent" && !strings.Contains(msg, "its scripts kept it busy") {
				t.Errorf("message %q, want it to say the page's scripts kept it busy", msg)
			}
		})
	}
	// Lighthouse cannot audit such a page; it gives up at the timeout,
	// with its own code.
	t.Run("/lighthouse", func(t *testing.T) {
		needLighthouse(t)
		began := time.Now()
		api.Post(t, "/lighthouse", map[string]any{"url": site.url("/busy"), "timeout": 15}).
			WantError(t, http.StatusInternalServerError, sitediag.CodeLighthouseUnexpected)
		if took := time.Since(began); took > 25*time.Second {
			t.Errorf("took %s, want about the 15 s timeout", took)
		}
	})
}

// A page that never finishes loading (an image, a script in its head or
// a stylesheet that never comes, a document that never ends) is read as
// it was when the timeout came, by every page-content operation alike:
// 200 with loadTimedOut. #30 saw /mixedcontent and /brand answer 422
// after 31 s where /metascraping and /web-scraping answered so; on this
// code only /brand still failed, on a page whose parsing stopped in its
// head (500 BRAND_FAILED: its extraction needed a body).
func TestPageContentOnAPageThatNeverLoads(t *testing.T) {
	needChromium(t)
	api := apitest.New(t, apitest.Options{})
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	hang := func(r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}
	const page = `<!doctype html><html><head><title>Never Loads</title><meta property="og:site_name" content="Never Loads">` +
		`</head><body><h1>Never Loads</h1><p>It never finishes.</p>`
	api.DNS.Add(t, "never.test. 60 IN A 127.0.0.1")
	warm := false
	for _, site := range []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"an image that never comes", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/hang" {
				hang(r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, page+`<img src="/hang" alt="hang"></body></html>`)
		}},
		{"a script in the head that never comes", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/hang.js" {
				hang(r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, strings.Replace(page, "</head>", `<script src="/hang.js"></script></head>`, 1)+`</body></html>`)
		}},
		{"a stylesheet that never comes", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/hang.css" {
				hang(r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, strings.Replace(page, "</head>", `<link rel="stylesheet" href="/hang.css"></head>`, 1)+`</body></html>`)
		}},
		{"a document that never ends", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, page+strings.Repeat("<!-- padding -->", 1024))
			w.(http.Flusher).Flush()
			hang(r)
		}},
	} {
		srv := httptest.NewServer(site.handler)
		t.Cleanup(srv.Close)
		target := "http://never.test:" + port(srv.URL) + "/"
		if !warm {
			// The browser's start counts against a job's deadline: start it first.
			api.Post(t, "/screenshot", map[string]any{"url": target, "timeout": 30})
			warm = true
		}
		for _, path := range []string{"/metascraping", "/web-scraping", "/mixedcontent", "/brand"} {
			t.Run(site.name+path, func(t *testing.T) {
				began := time.Now()
				resp := api.Post(t, path, map[string]any{"url": target, "timeout": 8})
				meta, _ := resp.WantSuccess(t)
				if took := time.Since(began); took > 20*time.Second {
					t.Errorf("took %s, want about the 8 s timeout", took)
				}
				if path != "/brand" { // its meta is the spec's
					wantMeta(t, meta, map[string]any{"loadTimedOut": true})
				}
			})
		}
	}
}

// A page of 100,000 elements and no script keeps Chromium busy laying it
// out, not running scripts: it is not reported as "its scripts kept it
// busy" (#30), while a page whose script never yields still is
// (TestBrowserOperationsOnABusyPage).
func TestLargeScriptlessPageIsNotScriptBusy(t *testing.T) {
	needChromium(t)
	api := apitest.New(t, apitest.Options{})
	var page strings.Builder
	page.WriteString(`<!doctype html><html><head><title>Large</title><style>td { border: 1px solid #999 } .c:nth-child(odd) { color: #036 }</style></head><body><h1>Large</h1><table>`)
	for i := range 10_000 {
		fmt.Fprintf(&page, `<tr><td class="c">%d</td><td class="c">a</td><td class="c">b</td><td class="c">c</td><td class="c">d</td><td class="c">e</td><td class="c">f</td><td class="c">g</td><td class="c">h</td></tr>`, i)
	}
	page.WriteString(`</table></body></html>`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, page.String())
	}))
	t.Cleanup(srv.Close)
	target := srv.URL + "/"
	api.Post(t, "/screenshot", map[string]any{"url": target, "timeout": 60})
	for _, path := range []string{"/metascraping", "/screenshot"} {
		t.Run(path, func(t *testing.T) {
			resp := api.Post(t, path, map[string]any{"url": target, "timeout": 30})
			meta, _ := resp.WantSuccess(t)
			if meta["scriptsStopped"] != false {
				t.Errorf("scriptsStopped %v, want false: the page has no script", meta["scriptsStopped"])
			}
			if msg, _ := resp.Envelope["message"].(string); strings.Contains(msg, "scripts") {
				t.Errorf("message %q blames the page's scripts; it has none", msg)
			}
		})
	}
}

// timeout is checked, named when wrong, and capped by the job's deadline.
func TestBrowserTimeoutOption(t *testing.T) {
	needChromium(t)
	api := apitest.New(t, apitest.Options{})
	site := startPages(t, api)
	for _, timeout := range []any{-1, 0.5, "10"} {
		resp := api.Post(t, "/screenshot", map[string]any{"url": site.url("/"), "timeout": timeout})
		resp.WantError(t, http.StatusBadRequest, sitediag.CodeInvalidParameters)
		if d, _ := resp.Envelope["details"].(string); !strings.Contains(d, "timeout") {
			t.Errorf("timeout %v: details %q do not name the field", timeout, d)
		}
	}
	for _, tc := range []struct{ timeout, want any }{{nil, 60}, {1000, 60}, {12.5, 12.5}} {
		meta, _ := api.Post(t, "/url2pdf", map[string]any{"url": site.url("/"), "timeout": tc.timeout}).WantSuccess(t)
		wantMeta(t, meta, map[string]any{"timeout": tc.want, "scriptsStopped": false, "loadTimedOut": false})
	}
}

// A country proxy that cannot be used is the operator's, not the
// target's: every browser operation answers its own 500 *_FAILED.
func TestBrowserUnusableCountryProxy(t *testing.T) {
	needChromium(t)
	// A proxy that hangs up at once. (A closed port could be taken by
	// another listener meanwhile; this one stays ours.)
	proxy := porttest.Listen(t, porttest.Hangup)
	api := apitest.New(t, apitest.Options{Config: sitediag.Config{
		Proxies: map[string]*url.URL{"de": {Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", proxy.Port)}},
	}})
	site := startPages(t, api)
	for _, tc := range []struct {
		path string
		body map[string]any
		code sitediag.Code
	}{
		{"/screenshot", nil, sitediag.CodeScreenshotFailed},
		{"/url2pdf", nil, sitediag.CodePDFConversionFailed},
		{"/metascraping", nil, sitediag.CodeCrawlFailed},
		{"/metascraping", map[string]any{"renderJS": false}, sitediag.CodeCrawlFailed},
		{"/web-scraping", nil, sitediag.CodeCrawlFailed},
		{"/mixedcontent", nil, sitediag.CodeMixedContentCheckFailed},
		{"/lighthouse", nil, sitediag.CodeLighthouseUnexpected},
	} {
		body := map[string]any{"url": site.url("/"), "proxyCountry": "de"}
		for k, v := range tc.body {
			body[k] = v
		}
		t.Run(tc.path, func(t *testing.T) {
			if tc.path == "/lighthouse" {
				needLighthouse(t)
			}
			api.Post(t, tc.path, body).WantError(t, http.StatusInternalServerError, tc.code)
		})
	}
}
