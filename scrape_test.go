package sitediag_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/content"
	"github.com/sitediag/sitediag/internal/charsettest"
	"github.com/sitediag/sitediag/internal/dnstest"
	"github.com/sitediag/sitediag/internal/porttest"
	"github.com/sitediag/sitediag/internal/testenv"
)

// corpusSite serves testdata/pages on 127.0.0.1 without a charset in the
// header, plus a few pages of its own.
func corpusSite(t *testing.T) *httptest.Server {
	t.Helper()
	files := http.FileServer(http.Dir("testdata/pages"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/bare":
			fmt.Fprint(w, "<html><body><p>nothing about itself</p></body></html>")
			return
		case "/empty":
			fmt.Fprint(w, "<html><head><title>Empty</title></head><body></body></html>")
			return
		case "/logo.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\n"))
			return
		case "/moved":
			http.Redirect(w, r, "/news-article.html", http.StatusFound)
			return
		case "/to-tls-error":
			// The script sends the page to https on this plain http port:
			// the handshake fails and Chromium shows its error page.
			fmt.Fprint(w, `<html><head><title>Leaving</title></head><body><p>Taking you to the secure site.</p>
				<script>location.href = "https://" + location.host + "/"</script></body></html>`)
			return
		case "/late":
			fmt.Fprint(w, `<html><body><div id="app"></div><script>setTimeout(() => {
				document.getElementById("app").innerHTML = "<article><h1>Arrived</h1><p class=late>" + "It came late. ".repeat(30) + "</p></article>"
			}, 300)</script></body></html>`)
			return
		}
		if strings.HasSuffix(r.URL.Path, ".html") {
			w.Header().Set("Content-Type", "text/html")
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func needChromium(t *testing.T) {
	t.Helper()
	_, err := browser.Find(os.Getenv("SITEDIAG_CHROME_PATH"))
	testenv.Need(t, err == nil, "needs Chromium (apt-get install chromium)")
}

func wantCode(t *testing.T, err error, code sitediag.Code) {
	t.Helper()
	if got := sitediag.CodeOf(err); got != code {
		t.Errorf("got %v, want %s", err, code)
	}
}

// closedURL is the URL of a loopback port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	return "http://127.0.0.1:" + strconv.Itoa(int(porttest.Closed(t))) + "/"
}

func TestMetaScrapeWithoutBrowser(t *testing.T) {
	site := corpusSite(t)
	c := loopbackClient(t)
	ctx := context.Background()
	res, err := c.MetaScrape(ctx, site.URL+"/moved", sitediag.MetaScrapeOptions{RenderJS: sitediag.Off})
	if err != nil {
		t.Fatal(err)
	}
	if res.Metadata.Title != "Council approves new cycle lanes for city centre" || res.Metadata.Author != "Priya Natarajan" {
		t.Errorf("metadata: %+v", res.Metadata)
	}
	want := sitediag.MetaScrapeOptions{PageOptions: sitediag.PageOptions{Device: "desktop", BlockAds: sitediag.On,
		HideCookie: sitediag.Off, SkipCaptcha: sitediag.Off, Timeout: 60}, RenderJS: sitediag.Off, Format: "json", FileOutput: sitediag.Off}
	if res.Settings != want || res.URL != site.URL+"/moved" || res.RedirectedURL != site.URL+"/news-article.html" || res.Markdown != "" {
		t.Errorf("settings %+v, visit %+v", res.Settings, res.PageVisit)
	}

	// The manifest's icons join the page's.
	res, err = c.MetaScrape(ctx, site.URL+"/landing-page.html", sitediag.MetaScrapeOptions{RenderJS: sitediag.Off, Format: "Markdown"})
	if err != nil {
		t.Fatal(err)
	}
	var manifest []string
	for _, i := range res.Metadata.Icons {
		if i.Source == "manifest" {
			manifest = append(manifest, i.URL)
		}
	}
	if len(manifest) != 2 || manifest[1] != site.URL+"/icons/android-512.png" {
		t.Errorf("manifest icons: %v", manifest)
	}
	if res.Settings.Format != "markdown" || !strings.HasPrefix(res.Markdown, "# Ledgerly – Invoicing for freelancers") {
		t.Errorf("markdown: %q", res.Markdown)
	}

	for _, tc := range []struct {
		name, url string
		opts      sitediag.MetaScrapeOptions
		code      sitediag.Code
	}{
		{"no metadata", site.URL + "/bare", sitediag.MetaScrapeOptions{}, sitediag.CodeNoMetadata},
		{"not HTML", site.URL + "/logo.png", sitediag.MetaScrapeOptions{}, sitediag.CodeCrawlFailed},
		{"refused port", closedURL(t), sitediag.MetaScrapeOptions{}, sitediag.CodeUnableToConnect},
		{"not resolved", "http://no-such-name.invalid/", sitediag.MetaScrapeOptions{}, sitediag.CodeUnableToConnect},
		{"metadata address", "http://169.254.169.254/latest/", sitediag.MetaScrapeOptions{}, sitediag.CodeTargetNotAllowed},
		{"bad URL", "ftp://site.test/", sitediag.MetaScrapeOptions{}, sitediag.CodeInvalidURL},
		{"bad format", site.URL, sitediag.MetaScrapeOptions{Format: "xml"}, sitediag.CodeInvalidParameters},
		{"bad device", site.URL, sitediag.MetaScrapeOptions{PageOptions: sitediag.PageOptions{Device: "tv"}}, sitediag.CodeInvalidParameters},
		{"no proxy", site.URL, sitediag.MetaScrapeOptions{PageOptions: sitediag.PageOptions{ProxyCountry: "zz"}}, sitediag.CodeProxyCountryUnsupported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			if opts.RenderJS == 0 {
				opts.RenderJS = sitediag.Off
			}
			_, err := c.MetaScrape(ctx, tc.url, opts)
			wantCode(t, err, tc.code)
		})
	}
}

// A page that names no logo nor icon has the site's /favicon.ico as its
// logo, as metascraper-logo-favicon finds it; a "not found" page served
// in its place is no icon.
func TestMetaScrapeDefaultIcon(t *testing.T) {
	page := `<html><head><title>Plain page</title></head><body><p>Nothing else.</p></body></html>`
	serve := func(icon func(w http.ResponseWriter)) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/favicon.ico":
				icon(w)
			case "/favicon.png":
				http.NotFound(w, r)
			default:
				fmt.Fprint(w, page)
			}
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	real := serve(func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "image/x-icon")
		w.Write([]byte("\x00\x00\x01\x00\x01\x00\x10\x10"))
	})
	soft404 := serve(func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "image/x-icon")
		fmt.Fprint(w, "<html><body>Not found</body></html>")
	})
	c := loopbackClient(t)
	ctx := context.Background()
	res, err := c.MetaScrape(ctx, real.URL+"/post", sitediag.MetaScrapeOptions{RenderJS: sitediag.Off})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Metadata; m.Logo != real.URL+"/favicon.ico" || len(m.Icons) != 1 || m.Icons[0].Source != "default" {
		t.Errorf("logo %q, icons %+v; want %s/favicon.ico", m.Logo, m.Icons, real.URL)
	}
	res, err = c.MetaScrape(ctx, soft404.URL+"/post", sitediag.MetaScrapeOptions{RenderJS: sitediag.Off})
	if err != nil {
		t.Fatal(err)
	}
	if res.Metadata.Logo != "" {
		t.Errorf("logo %q from a page served as an icon", res.Metadata.Logo)
	}
}

func TestWebScrapeWithoutBrowser(t *testing.T) {
	site := corpusSite(t)
	c := loopbackClient(t)
	ctx := context.Background()
	res, err := c.WebScrape(ctx, site.URL+"/news-article.html", sitediag.WebScrapeOptions{
		RenderJS: sitediag.Off, Format: sitediag.ScrapeFormats{"text-llm", "Markdown", "json"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Settings.Format; len(got) != 3 || got[1] != "markdown" || res.Settings.ExtractionMode != "default" {
		t.Errorf("settings: %+v", res.Settings)
	}
	text, _ := res.Content["text-llm"].(string)
	md, _ := res.Content["markdown"].(string)
	outline, _ := res.Content["json"].(*content.Outline)
	if !strings.Contains(text, "fourteen kilometres") || strings.Contains(text, "Related stories") {
		t.Errorf("text-llm: %q", text)
	}
	if !strings.Contains(md, "## Businesses divided") || !strings.Contains(md, "Related stories") {
		t.Errorf("markdown: %q", md)
	}
	if outline == nil || outline.Title != "Council approves new cycle lanes for city centre" || len(outline.Links) == 0 {
		t.Errorf("json: %+v", outline)
	}

	schema := &sitediag.ExtractionSchema{Name: "stoves", BaseSelector: "li.product",
		Fields: []content.Field{{Name: "name", Selector: ".name"}, {Name: "price", Selector: ".price"}}}
	res, err = c.WebScrape(ctx, site.URL+"/category-listing.html", sitediag.WebScrapeOptions{RenderJS: sitediag.Off, ExtractionMode: "cssSchema", ExtractionSchema: schema})
	if err != nil {
		t.Fatal(err)
	}
	stoves, _ := res.Content["json"].(map[string]any)["stoves"].([]map[string]any)
	if res.Settings.ExtractionMode != "cssSchema" || len(stoves) != 3 || stoves[2]["price"] != "$64.50" {
		t.Errorf("cssSchema: %+v %v", res.Settings, res.Content)
	}

	for _, tc := range []struct {
		name string
		url  string
		opts sitediag.WebScrapeOptions
		code sitediag.Code
	}{
		{"four formats", site.URL, sitediag.WebScrapeOptions{Format: sitediag.ScrapeFormats{"html", "text", "json", "markdown"}}, sitediag.CodeInvalidParameters},
		{"unknown format", site.URL, sitediag.WebScrapeOptions{Format: sitediag.ScrapeFormats{"pdf"}}, sitediag.CodeInvalidParameters},
		{"twice", site.URL, sitediag.WebScrapeOptions{Format: sitediag.ScrapeFormats{"html", "HTML"}}, sitediag.CodeInvalidParameters},
		{"wait too long", site.URL, sitediag.WebScrapeOptions{WaitTime: 31}, sitediag.CodeInvalidParameters},
		{"bad schema", site.URL, sitediag.WebScrapeOptions{ExtractionMode: "cssSchema", ExtractionSchema: &sitediag.ExtractionSchema{BaseSelector: "li"}}, sitediag.CodeInvalidParameters},
		{"schema without json", site.URL, sitediag.WebScrapeOptions{Format: sitediag.ScrapeFormats{"html"}, ExtractionMode: "cssSchema", ExtractionSchema: schema}, sitediag.CodeInvalidParameters},
		{"no main content", site.URL + "/empty", sitediag.WebScrapeOptions{Format: sitediag.ScrapeFormats{"text-llm"}}, sitediag.CodeCrawlFailed},
		{"refused port", closedURL(t), sitediag.WebScrapeOptions{}, sitediag.CodeUnableToConnect},
		{"metadata address", "http://169.254.169.254/", sitediag.WebScrapeOptions{}, sitediag.CodeTargetNotAllowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.RenderJS = sitediag.Off
			_, err := c.WebScrape(ctx, tc.url, opts)
			wantCode(t, err, tc.code)
		})
	}
}

// TestContentRendered reads the corpus in Chromium. Rendered, the SPA's
// content and the metadata its script sets are there; fetched, only the
// spinner is. A page whose script navigates to a URL that fails ends on
// Chromium's error page: that is no content of the site's but a failure
// to connect.
func TestContentRendered(t *testing.T) {
	needChromium(t)
	site := corpusSite(t)
	c := loopbackClient(t)
	ctx := context.Background()
	t.Run("spa", func(t *testing.T) {
		static, err := c.MetaScrape(ctx, site.URL+"/spa-rendered.html", sitediag.MetaScrapeOptions{RenderJS: sitediag.Off})
		if err != nil {
			t.Fatal(err)
		}
		if static.Metadata.Title != "Loading…" {
			t.Errorf("static title: %q", static.Metadata.Title)
		}
		res, err := c.MetaScrape(ctx, site.URL+"/spa-rendered.html", sitediag.MetaScrapeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		m := res.Metadata
		if m.Title != "Ten days in the Dolomites: a hut-to-hut route" || m.Author != "Lena Hofer" || m.Date != "2025-08-02T07:30:00Z" ||
			m.Image != "https://cdn.orbit.example/trips/dolomites.jpg" || res.Settings.RenderJS != sitediag.On {
			t.Errorf("rendered metadata: %+v", m)
		}
	})
	t.Run("waitFor", func(t *testing.T) {
		ws, err := c.WebScrape(ctx, site.URL+"/late", sitediag.WebScrapeOptions{WaitFor: "p.late", Format: sitediag.ScrapeFormats{"text-llm"}})
		if err != nil {
			t.Fatal(err)
		}
		if text, _ := ws.Content["text-llm"].(string); !strings.Contains(text, "It came late.") || ws.WaitForFound == nil || !*ws.WaitForFound {
			t.Errorf("waitFor: found %v, text %q", ws.WaitForFound, text)
		}
		_, err = c.WebScrape(ctx, site.URL+"/late", sitediag.WebScrapeOptions{WaitFor: "p[["})
		wantCode(t, err, sitediag.CodeInvalidParameters)
	})
	t.Run("error page", func(t *testing.T) {
		_, err := c.MetaScrape(ctx, site.URL+"/to-tls-error", sitediag.MetaScrapeOptions{})
		wantCode(t, err, sitediag.CodeUnableToConnect)
		if err != nil && !strings.Contains(err.Error(), "TLS handshake failed") {
			t.Errorf("MetaScrape: %v, want the TLS failure named", err)
		}
		_, err = c.WebScrape(ctx, site.URL+"/to-tls-error", sitediag.WebScrapeOptions{Format: sitediag.ScrapeFormats{"text"}})
		wantCode(t, err, sitediag.CodeUnableToConnect)
	})
}

// Without a browser, each of charsettest's pages (served with no
// charset in the header) reads as Chromium reads it.
func TestCharsetAsChromium(t *testing.T) {
	needChromium(t)
	pages := charsettest.Pages()
	mux := http.NewServeMux()
	for _, p := range pages {
		mux.HandleFunc("/"+p.Name, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write(p.Body)
		})
	}
	site := httptest.NewServer(mux)
	defer site.Close()
	c := loopbackClient(t)
	ctx := context.Background()
	for _, p := range pages {
		t.Run(p.Name, func(t *testing.T) {
			u := site.URL + "/" + p.Name
			static, err := c.MetaScrape(ctx, u, sitediag.MetaScrapeOptions{RenderJS: sitediag.Off})
			if err != nil {
				t.Fatal(err)
			}
			rendered, err := c.MetaScrape(ctx, u, sitediag.MetaScrapeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if static.Metadata.Title != rendered.Metadata.Title {
				t.Errorf("without a browser %q (%s), Chromium %q", static.Metadata.Title, static.Metadata.Charset, rendered.Metadata.Title)
			}
		})
	}
}

func TestMixedContent(t *testing.T) {
	needChromium(t)
	dns := dnstest.Start(t)
	insecure := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok"))
	}))
	defer insecure.Close()
	var securePort string
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := "http://insecure.test:" + port(insecure.URL)
		switch r.URL.Path {
		case "/":
			fmt.Fprintf(w, `<!doctype html><html><head><link rel="stylesheet" href="%[1]s/style.css"><script src="%[1]s/app.js"></script></head>
				<body><img src="%[1]s/pic.png"><iframe src="%[1]s/frame"></iframe><form action="%[1]s/post"></form>
				<img src="https://secure.test:%[2]s/ok.png"><script>fetch("%[1]s/api").catch(() => {})</script></body></html>`, h, securePort)
		case "/moved":
			http.Redirect(w, r, "/", http.StatusFound)
		default:
			w.Write([]byte("ok"))
		}
	}))
	defer secure.Close()
	securePort = port(secure.URL)
	dns.Add(t, "insecure.test. 60 IN A 127.0.0.1", "secure.test. 60 IN A 127.0.0.1")
	c := newClient(t, sitediag.Config{DNSServers: []string{dns.Addr}, AllowNetworks: loopback})
	ctx := context.Background()
	page := "https://secure.test:" + securePort + "/"
	res, err := c.MixedContent(ctx, page, sitediag.MixedContentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	items := map[string]sitediag.MixedContentItem{}
	for _, it := range res.Items {
		items[it.URL[strings.LastIndex(it.URL, "/"):]] = it
	}
	for path, want := range map[string]struct {
		typ             string
		active, blocked bool
	}{
		"/app.js":    {"script", true, true},
		"/style.css": {"stylesheet", true, true},
		"/frame":     {"iframe", true, true},
		"/post":      {"form", true, false},
	} {
		it, ok := items[path]
		if !ok || it.Type != want.typ || it.Active != want.active || it.Blocked != want.blocked {
			t.Errorf("%s: got %+v (found %v), want type %s active %v blocked %v", path, it, ok, want.typ, want.active, want.blocked)
		}
	}
	if it, ok := items["/pic.png"]; !ok || it.Active || !(it.Blocked || it.Upgraded) {
		t.Errorf("/pic.png: got %+v (found %v), want a passive item, blocked or upgraded", it, ok)
	}
	if len(res.Insecure) != len(res.Items) || !slices.Contains(res.Secure, "https://secure.test:"+securePort+"/ok.png") {
		t.Errorf("insecure %v, secure %v", res.Insecure, res.Secure)
	}

	// A plain http page has no mixed content by definition.
	plain, err := c.MixedContent(ctx, "http://insecure.test:"+port(insecure.URL)+"/", sitediag.MixedContentOptions{})
	if err != nil || len(plain.Items) != 0 || plain.Insecure == nil {
		t.Errorf("plain http page: %+v, %v", plain, err)
	}
	// A redirect is followed only when asked.
	_, err = c.MixedContent(ctx, page+"moved", sitediag.MixedContentOptions{})
	wantCode(t, err, sitediag.CodeUnableToConnect)
	res, err = c.MixedContent(ctx, page+"moved", sitediag.MixedContentOptions{FollowRedirect: sitediag.On})
	if err != nil || res.RedirectedURL != page || len(res.Items) == 0 {
		t.Errorf("followed redirect: %v, %v", res, err)
	}
	_, err = c.MixedContent(ctx, "http://169.254.169.254/", sitediag.MixedContentOptions{})
	wantCode(t, err, sitediag.CodeTargetNotAllowed)
}

func port(rawURL string) string { return rawURL[strings.LastIndex(rawURL, ":")+1:] }
