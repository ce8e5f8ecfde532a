package content_test

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sitediag/sitediag/content"
)

// corpusDoc parses a page of the corpus (testdata/pages at the module's
// root) as if served at http://site.test/<name>, with no charset in the
// Content-Type header, as most servers send it.
func corpusDoc(t *testing.T, name string) *content.Document {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("..", "testdata", "pages", name))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("http://site.test/" + name)
	d, err := content.Parse(body, "text/html", u)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// headline is the part of Metadata the priorities decide.
type headline struct {
	Title, Description, Image, Author, Date, DateModified, Publisher, Logo, URL, Lang string
}

func headlineOf(m *content.Metadata) headline {
	return headline{m.Title, m.Description, m.Image, m.Author, m.Date, m.DateModified, m.Publisher, m.Logo, m.URL, m.Lang}
}

func TestExtractMetadataHeadlines(t *testing.T) {
	for _, tc := range []struct {
		page string
		want headline
	}{
		{"news-article.html", headline{
			Title:       "Council approves new cycle lanes for city centre",
			Description: "Fourteen kilometres of protected lanes will be built by 2027.",
			Image:       "https://cdn.gazette.example/img/cycle-lanes-1200.jpg",
			Author:      "Priya Natarajan", Date: "2026-03-04T09:15:00Z", DateModified: "2026-03-04T14:02:00Z",
			Publisher: "The Riverside Gazette", Logo: "https://gazette.example/static/logo-600x60.png",
			URL: "https://gazette.example/news/2026/03/cycle-lanes-approved", Lang: "en-GB",
		}},
		// Yoast: the Organization's image is a reference to the logo node
		// described inside it. The publisher is only a reference too, so
		// og:site_name, the name the site displays, comes before the
		// Organization's name (as in metascraper).
		{"yoast-graph-refs.html", headline{
			Title:       "How we cut our build times in half",
			Description: "Caching, test sharding and a smaller base image took our CI pipeline from 22 to 10 minutes.",
			Image:       "https://northwind.example/wp-content/uploads/2024/01/northwind-logo.png",
			Author:      "Dana Okafor", Date: "2025-03-11T08:15:00Z", Publisher: "Northwind Engineering",
			Logo: "https://northwind.example/wp-content/uploads/2024/01/northwind-logo.png",
			URL:  "https://northwind.example/blog/build-times/", Lang: "en-US",
		}},
		// @graph flattened, @id references followed (author, publisher, logo).
		{"jsonld-graph.html", headline{
			Title:       "Sauerteigbrot für Einsteiger – Backstube Lindner",
			Description: "Ein einfaches Rezept für ein kräftiges Sauerteigbrot mit langer Teigführung.",
			Image:       "https://backstube-lindner.example/wp-content/uploads/sauerteigbrot.jpg",
			Author:      "Martina Lindner", Date: "2024-10-05T04:00:00Z", DateModified: "2025-01-12T17:20:00Z",
			Publisher: "Backstube Lindner", Logo: "https://backstube-lindner.example/wp-content/uploads/logo-512.png",
			URL: "https://backstube-lindner.example/rezepte/sauerteigbrot-einsteiger/", Lang: "de-DE",
		}},
		// Relative URLs resolve against <base>, not the page.
		{"base-relative.html", headline{
			Title:       "The Lighthouse Keeper's Logbooks",
			Description: "A new exhibition of the logbooks kept at North Point lighthouse between 1871 and 1956.",
			Image:       "https://static.museum.example/collections/2025/images/logbook-cover.jpg",
			Publisher:   "Harbour Museum", Logo: "https://static.museum.example/collections/2025/icons/touch-192.png",
			URL: "https://static.museum.example/exhibitions/logbooks/", Lang: "en",
		}},
		// Decoded from the charset the page declares.
		{"latin1-page.html", headline{
			Title:       "Fromagerie Dufresne - Nos fromages affinés",
			Description: "Fromages de caractère affinés dans nos caves : comté 24 mois, beaufort d'été, époisses.",
			Author:      "Hélène Dufresne", Publisher: "Nos fromages affinés", URL: "http://site.test/latin1-page.html", Lang: "fr",
		}},
		{"shift-jis-page.html", headline{
			Title: "京都の紅葉スポット10選", Description: "京都で紅葉を楽しめる名所を、見頃の時期とアクセスとともに紹介します。",
			Publisher: "旅のしおり", URL: "http://site.test/shift-jis-page.html", Lang: "ja",
		}},
		{"windows-1252-blog.html", headline{
			Title:       "Notes from the workshop: restoring a 1950s radio",
			Description: "Replacing the capacitors in a valve radio, step by step.",
			Author:      "Bill O’Connor", Date: "2019-04-27T00:00:00Z", URL: "http://site.test/windows-1252-blog.html",
		}},
		// Microdata: itemprop content and an img[itemprop=image].
		{"microdata.html", headline{
			Title:       "Review: The Quiet Orchard by Mei Tanaka",
			Description: "Mei Tanaka's second novel follows three generations on a failing apple farm.",
			Image:       "http://site.test/covers/quiet-orchard.jpg", Author: "Oliver Grant", Date: "2025-09-14T00:00:00Z",
			URL: "http://site.test/microdata.html", Lang: "en",
		}},
		{"title-only.html", headline{Title: "Index of /downloads", URL: "http://site.test/title-only.html"}},
		{"twitter-only.html", headline{
			Title:       "Acme Cloud status: all systems operational",
			Description: "Live status of Acme Cloud services and scheduled maintenance.",
			Image:       "https://status.acme.example/social.png", URL: "http://site.test/twitter-only.html",
		}},
	} {
		t.Run(tc.page, func(t *testing.T) {
			m := content.ExtractMetadata(corpusDoc(t, tc.page))
			if diff := cmp.Diff(tc.want, headlineOf(m)); diff != "" {
				t.Errorf("headline fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractMetadataSources(t *testing.T) {
	m := content.ExtractMetadata(corpusDoc(t, "news-article.html"))
	images, _ := m.Sources.OpenGraph["image"].([]map[string]string)
	wantImages := []map[string]string{
		{"url": "https://cdn.gazette.example/img/cycle-lanes-1200.jpg", "width": "1200", "height": "630", "alt": "Cyclists on Bridge Street"},
		{"url": "https://cdn.gazette.example/img/cycle-lanes-map.png", "width": "800", "height": "800"},
	}
	if diff := cmp.Diff(wantImages, images); diff != "" {
		t.Errorf("og:image array (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Cycling", "Transport"}, m.Sources.OpenGraph["article:tag"]); diff != "" {
		t.Errorf("repeated article:tag (-want +got):\n%s", diff)
	}
	if got := m.Sources.Twitter["card"]; got != "summary_large_image" {
		t.Errorf("twitter card: got %v", got)
	}
	if len(m.Sources.JSONLD) != 1 || m.Sources.JSONLD[0]["@type"] != "NewsArticle" {
		t.Errorf("JSON-LD: got %v", m.Sources.JSONLD)
	}
	if diff := cmp.Diff([]string{"cycling", "transport", "council", "city centre"}, m.Keywords); diff != "" {
		t.Errorf("keywords (-want +got):\n%s", diff)
	}
	wantIcons := []content.Icon{
		{URL: "http://site.test/favicon.ico", Rel: "icon", Sizes: "32x32", Source: "html"},
		{URL: "http://site.test/static/apple-touch-icon.png", Rel: "apple-touch-icon", Sizes: "180x180", Source: "html"},
	}
	if diff := cmp.Diff(wantIcons, m.Icons); diff != "" {
		t.Errorf("icons (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]content.Alternate{{URL: "http://site.test/feeds/news.xml", Type: "application/rss+xml", Title: "Gazette news"}}, m.Feeds); diff != "" {
		t.Errorf("feeds (-want +got):\n%s", diff)
	}
	if m.ThemeColor != "#b00020" || m.Charset != "utf-8" || m.Canonical != "https://gazette.example/news/2026/03/cycle-lanes-approved" {
		t.Errorf("theme %q, charset %q, canonical %q", m.ThemeColor, m.Charset, m.Canonical)
	}

	graph := content.ExtractMetadata(corpusDoc(t, "jsonld-graph.html"))
	if n := len(graph.Sources.JSONLD); n != 5 {
		t.Errorf("@graph flattened into %d objects, want 5", n)
	}
	video := content.ExtractMetadata(corpusDoc(t, "video-page.html"))
	if len(video.OEmbed) != 2 || video.OEmbed[0].Type != "application/json+oembed" {
		t.Errorf("oEmbed: got %+v", video.OEmbed)
	}
	if v, _ := video.Sources.OpenGraph["video"].([]map[string]string); len(v) != 1 || v[0]["width"] != "1280" || v[0]["secure_url"] == "" {
		t.Errorf("og:video: got %v", video.Sources.OpenGraph["video"])
	}
	changelog := content.ExtractMetadata(corpusDoc(t, "changelog.html"))
	if len(changelog.Feeds) != 2 || changelog.Feeds[1].Type != "application/feed+json" {
		t.Errorf("atom and JSON feeds: got %+v", changelog.Feeds)
	}
}

func TestMetadataEmptyAndMarkdown(t *testing.T) {
	u, _ := url.Parse("http://site.test/")
	d, _ := content.ParseText("<html><body><p>only text</p></body></html>", u)
	if m := content.ExtractMetadata(d); !m.Empty() {
		t.Errorf("a page with no metadata is not Empty: %+v", m)
	}
	m := content.ExtractMetadata(corpusDoc(t, "news-article.html"))
	md := m.Markdown()
	for _, want := range []string{"# Council approves new cycle lanes for city centre", "- **Author:** Priya Natarajan",
		"- **Published:** 2026-03-04T09:15:00Z", "## Open Graph", "## Feeds"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestParseManifest(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("..", "testdata", "pages", "site.webmanifest"))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("http://site.test/site.webmanifest")
	want := []content.Icon{
		{URL: "http://site.test/icons/android-192.png", Rel: "manifest", Sizes: "192x192", Type: "image/png", Source: "manifest"},
		{URL: "http://site.test/icons/android-512.png", Rel: "manifest", Sizes: "512x512", Type: "image/png", Source: "manifest"},
	}
	m := content.ParseManifest(body, u)
	if diff := cmp.Diff(want, m.Icons); diff != "" || m.Name != "Ledgerly" {
		t.Errorf("name %q, icons (-want +got):\n%s", m.Name, diff)
	}
	if got := content.ParseManifest([]byte("not json"), u); got != nil {
		t.Errorf("not a manifest: got %v", got)
	}
}

func TestJSONLDRepairs(t *testing.T) {
	page, _ := url.Parse("https://site.test/post")
	for _, tc := range []struct{ name, block string }{
		{"plain", `{"@type":"Article","author":{"name":"Ann Lee"}}`},
		{"comment wrapper", "<!--\n{\"@type\":\"Article\",\"author\":{\"name\":\"Ann Lee\"}}\n-->"},
		{"CDATA wrapper", "//<![CDATA[\n{\"@type\":\"Article\",\"author\":{\"name\":\"Ann Lee\"}}\n//]]>"},
		{"trailing semicolon", `{"@type":"Article","author":{"name":"Ann Lee"}};`},
		{"raw line break in a string", "{\"@type\":\"Article\",\"description\":\"one\ntwo\",\"author\":{\"name\":\"Ann Lee\"}}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := content.ParseText(`<html><head><title>T</title><script type="application/ld+json">`+tc.block+`</script></head></html>`, page)
			if err != nil {
				t.Fatal(err)
			}
			m := content.ExtractMetadata(d)
			if len(m.Sources.JSONLD) != 1 || m.Author != "Ann Lee" {
				t.Errorf("JSON-LD %v, author %q; want one node and author Ann Lee", m.Sources.JSONLD, m.Author)
			}
		})
	}
	d, _ := content.ParseText(`<html><head><title>T</title><script type="application/ld+json">{"@type": </script></head></html>`, page)
	if m := content.ExtractMetadata(d); len(m.Sources.JSONLD) != 0 {
		t.Errorf("a broken block gave nodes: %v", m.Sources.JSONLD)
	}
}
