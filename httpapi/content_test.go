package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitest"
)

// corpusPages serves the module's testdata/pages as site.test.
func corpusPages(t *testing.T, api *apitest.API) func(path string) string {
	t.Helper()
	files := http.FileServer(http.Dir("../testdata/pages"))
	base := serveAs(t, api, "site.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bare" {
			io.WriteString(w, "<html><body><p>no metadata</p></body></html>")
			return
		}
		if strings.HasSuffix(r.URL.Path, ".html") {
			w.Header().Set("Content-Type", "text/html")
		}
		files.ServeHTTP(w, r)
	}))
	return func(path string) string { return base + path }
}

func TestMetaScrapingEnvelope(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	page := corpusPages(t, api)
	for _, path := range []string{"/metascraping", "/meta-scraping"} {
		resp := api.Post(t, path, map[string]any{"url": page("/news-article.html"), "renderJS": false})
		meta, data := resp.WantSuccess(t)
		wantMeta(t, meta, map[string]any{"url": page("/news-article.html"), "device": "desktop", "format": "json",
			"fileOutput": false, "blockAds": true, "renderJS": false, "redirectedURL": page("/news-article.html"), "blockedRequests": 0})
		m, _ := data.(map[string]any)
		if m["title"] != "Council approves new cycle lanes for city centre" || m["publisher"] != "The Riverside Gazette" {
			t.Errorf("%s data: %v", path, data)
		}
		sources, _ := m["sources"].(map[string]any)
		og, _ := sources["openGraph"].(map[string]any)
		if images, _ := og["image"].([]any); len(images) != 2 {
			t.Errorf("%s: og:image array: %v", path, og["image"])
		}
	}

	resp := api.Post(t, "/metascraping", map[string]any{"url": page("/news-article.html"), "renderJS": false, "format": "markdown"})
	_, data := resp.WantSuccess(t)
	if md, _ := data.(string); !strings.HasPrefix(md, "# Council approves") {
		t.Errorf("markdown data: %v", data)
	}
	resp = api.Post(t, "/metascraping", map[string]any{"url": page("/news-article.html"), "renderJS": false, "fileOutput": true})
	meta, data := resp.WantSuccess(t)
	body := fetchArtifact(t, api, data, "application/json")
	var m sitediag.Metadata
	if err := json.Unmarshal(body, &m); err != nil || m.Author != "Priya Natarajan" || meta["fileOutput"] != true {
		t.Errorf("file output: %v %s", err, body)
	}

	for _, tc := range []struct {
		body   map[string]any
		status int
		code   sitediag.Code
	}{
		{map[string]any{"url": page("/bare"), "renderJS": false}, 422, sitediag.CodeNoMetadata},
		{map[string]any{"url": "http://169.254.169.254/", "renderJS": false}, 403, sitediag.CodeTargetNotAllowed},
		{map[string]any{"url": "http://no-such.test/", "renderJS": false}, 422, sitediag.CodeUnableToConnect},
		{map[string]any{"url": "javascript:alert(1)"}, 400, sitediag.CodeInvalidURL},
		{map[string]any{}, 400, sitediag.CodeInvalidURL},
		{map[string]any{"url": page("/"), "format": "yaml"}, 400, sitediag.CodeInvalidParameters},
		{map[string]any{"url": page("/"), "renderJS": "yes"}, 400, sitediag.CodeInvalidParameters},
	} {
		api.Post(t, "/meta-scraping", tc.body).WantError(t, tc.status, tc.code)
	}
}

func TestWebScrapingEnvelope(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	page := corpusPages(t, api)
	for _, path := range []string{"/web-scraping", "/webscraping"} {
		resp := api.Post(t, path, map[string]any{"url": page("/blog-post.html"), "renderJS": false, "format": "text-llm"})
		meta, data := resp.WantSuccess(t)
		wantMeta(t, meta, map[string]any{"format": []any{"text-llm"}, "renderJS": false, "extractionMode": "default", "waitTime": 0})
		if text, _ := data.(string); !strings.Contains(text, "71% of jobs missed the cache") || strings.Contains(text, "Subscribe") {
			t.Errorf("%s text-llm: %v", path, data)
		}
	}
	resp := api.Post(t, "/web-scraping", map[string]any{"url": page("/blog-post.html"), "renderJS": false, "format": []string{"markdown-llm", "json"}})
	_, data := resp.WantSuccess(t)
	both, _ := data.(map[string]any)
	md, _ := both["markdown-llm"].(string)
	outline, _ := both["json"].(map[string]any)
	if !strings.Contains(md, "## A shared cache") || outline["title"] != "Why we moved our build cache to object storage" {
		t.Errorf("two formats: %v", data)
	}
	resp = api.Post(t, "/web-scraping", map[string]any{"url": page("/category-listing.html"), "renderJS": false,
		"extractionMode": "cssSchema", "extractionSchema": map[string]any{"name": "stoves", "baseSelector": "li.product",
			"fields": []any{map[string]any{"name": "name", "selector": ".name", "type": "text"},
				map[string]any{"name": "url", "selector": "a", "type": "attribute", "attribute": "href"}}}})
	meta, data := resp.WantSuccess(t)
	stoves, _ := data.(map[string]any)["stoves"].([]any)
	first, _ := stoves[0].(map[string]any)
	if meta["extractionMode"] != "cssSchema" || len(stoves) != 3 || first["url"] != page("/p/jetlite-2") {
		t.Errorf("cssSchema: %v", data)
	}
	resp = api.Post(t, "/web-scraping", map[string]any{"url": page("/blog-post.html"), "renderJS": false, "format": "markdown", "fileOutput": true})
	_, data = resp.WantSuccess(t)
	if md := fetchArtifact(t, api, data, "text/markdown; charset=utf-8"); !strings.Contains(string(md), "Lattice Engineering") {
		t.Errorf("markdown file: %s", md)
	}

	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"url": page("/"), "format": 7}, "format"},
		{map[string]any{"url": page("/"), "format": []string{"html", "text", "json", "markdown"}}, "format"},
		{map[string]any{"url": page("/"), "format": "docx"}, "format"},
		{map[string]any{"url": page("/"), "waitTime": 45}, "waitTime"},
		{map[string]any{"url": page("/"), "extractionMode": "xpath"}, "extractionMode"},
		{map[string]any{"url": page("/"), "extractionMode": "cssSchema"}, "extractionSchema"},
		{map[string]any{"url": page("/"), "extractionSchema": map[string]any{"baseSelector": "li"}}, "extractionSchema"},
		{map[string]any{"url": page("/"), "extractionMode": "cssSchema", "extractionSchema": map[string]any{"baseSelector": "li", "fields": []any{map[string]any{"name": "a", "type": "regex"}}}}, "extractionSchema.fields[0].type"},
	} {
		resp := api.Post(t, "/web-scraping", tc.body)
		resp.WantError(t, 400, sitediag.CodeInvalidParameters)
		if d, _ := resp.Envelope["details"].(string); !strings.HasPrefix(d, tc.field+":") {
			t.Errorf("%v: details %q do not name %s", tc.body, d, tc.field)
		}
	}
	api.Post(t, "/webscraping", map[string]any{"url": "http://169.254.169.254/", "renderJS": false}).WantError(t, 403, sitediag.CodeTargetNotAllowed)
}

func TestMixedContentEnvelope(t *testing.T) {
	needChromium(t)
	api := apitest.New(t, apitest.Options{})
	insecure := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") }))
	defer insecure.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/clean" {
			io.WriteString(w, "<!doctype html><p>nothing insecure</p>")
			return
		}
		fmt.Fprintf(w, `<!doctype html><script src="http://cdn.test:%s/app.js"></script>`, port(insecure.URL))
	}))
	defer secure.Close()
	api.DNS.Add(t, "cdn.test. 60 IN A 127.0.0.1", "shop.test. 60 IN A 127.0.0.1")
	shop := "https://shop.test:" + port(secure.URL)

	resp := api.Post(t, "/mixedcontent", map[string]any{"url": shop + "/"})
	meta, data := resp.WantSuccess(t)
	if resp.Envelope["message"] != "Mixed content(s) found." {
		t.Errorf("message: %v", resp.Envelope["message"])
	}
	wantMeta(t, meta, map[string]any{"url": shop + "/", "followRedirect": false, "redirectedURL": shop + "/"})
	d, _ := data.(map[string]any)
	items, _ := d["items"].([]any)
	item, _ := items[0].(map[string]any)
	want := "http://cdn.test:" + port(insecure.URL) + "/app.js"
	if len(items) != 1 || item["url"] != want || item["type"] != "script" || item["active"] != true || item["blocked"] != true {
		t.Errorf("data: %v", data)
	}
	if insecureList, _ := d["insecure"].([]any); len(insecureList) != 1 || insecureList[0] != want {
		t.Errorf("insecure: %v", d["insecure"])
	}
	resp = api.Post(t, "/mixedcontent", map[string]any{"url": shop + "/clean"})
	resp.WantSuccess(t)
	if resp.Envelope["message"] != "No mixed content found." {
		t.Errorf("clean page message: %v", resp.Envelope["message"])
	}
	api.Post(t, "/mixedcontent", map[string]any{"url": "http://169.254.169.254/"}).WantError(t, 403, sitediag.CodeTargetNotAllowed)
	api.Post(t, "/mixedcontent", map[string]any{"url": "https://no-such.test/"}).WantError(t, 422, sitediag.CodeUnableToConnect)
	api.Post(t, "/mixedcontent", map[string]any{"url": shop, "followRedirect": "no"}).WantError(t, 400, sitediag.CodeInvalidParameters)
}

func TestBrandEnvelope(t *testing.T) {
	needChromium(t)
	api := apitest.New(t, apitest.Options{})
	target := serveAs(t, api, "www.ledgerly.test", http.FileServer(http.Dir("../testdata/brand/light-saas"))) + "/"

	resp := api.Post(t, "/brand", map[string]any{"url": target})
	meta, data := resp.WantSuccess(t)
	wantMeta(t, meta, map[string]any{"domain": "ledgerly.test", "mode": "standard", "cached": false, "refreshRequested": false})
	if last, err := time.Parse(time.RFC3339, meta["lastUpdated"].(string)); err != nil || time.Since(last) > time.Minute {
		t.Errorf("lastUpdated %v: %v", meta["lastUpdated"], err)
	}
	if !regexp.MustCompile(`^\d+[smhd]`).MatchString(meta["dataAge"].(string)) {
		t.Errorf("dataAge %v", meta["dataAge"])
	}
	rec, _ := data.(map[string]any)
	colors, _ := rec["colors"].(map[string]any)
	if rec["name"] != "Ledgerly" || colors["primary"] != "#0f766e" || rec["company"] != nil {
		t.Errorf("data: %v", data)
	}
	for _, k := range []string{"domain", "name", "tagline", "description", "slogan", "favicon", "bannerUrl", "isNsfw", "logos",
		"colors", "colorScheme", "fonts", "fontSizes", "components", "spacing", "socialProfiles", "links", "pageMeta"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("data lacks %s", k)
		}
	}

	meta, _ = api.Post(t, "/brand", map[string]any{"url": target}).WantSuccess(t)
	wantMeta(t, meta, map[string]any{"cached": true, "refreshRequested": false})
	meta, data = api.Post(t, "/brand", map[string]any{"url": target, "refresh": true, "mode": "enriched"}).WantSuccess(t)
	wantMeta(t, meta, map[string]any{"cached": false, "refreshRequested": true, "mode": "enriched"})
	if company, _ := data.(map[string]any)["company"].(map[string]any); company["foundedYear"] != float64(2019) {
		t.Errorf("enriched company: %v", company)
	}

	api.Post(t, "/brand", map[string]any{"url": "mailto:x@ledgerly.test"}).WantError(t, 400, sitediag.CodeInvalidURL)
	api.Post(t, "/brand", map[string]any{"url": target, "mode": "llm"}).WantError(t, 400, sitediag.CodeInvalidParameters)
	api.Post(t, "/brand", map[string]any{"url": target, "refresh": "yes"}).WantError(t, 400, sitediag.CodeInvalidParameters)
	api.Post(t, "/brand", map[string]any{"url": "http://169.254.169.254/"}).WantError(t, 403, sitediag.CodeTargetNotAllowed)
	api.Post(t, "/brand", map[string]any{"url": "http://gone.ledgerly.test/"}).WantError(t, 422, sitediag.CodeUnableToConnect)
}
