package content_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/sitediag/sitediag/content"
)

func metadataOf(t *testing.T, body string) *content.Metadata {
	t.Helper()
	u, _ := url.Parse("https://news.example/2024/03/story")
	d, err := content.Parse([]byte("<!doctype html><html><head><title>Story</title></head><body>"+body+"</body></html>"), "text/html; charset=utf-8", u)
	if err != nil {
		t.Fatal(err)
	}
	return content.ExtractMetadata(d)
}

// Bylines are cleaned as names, and dates are read from visible text
// and <time>, in metascraper's rule order.
func TestAuthorAndDateFromText(t *testing.T) {
	for _, tc := range []struct{ name, body, author, date string }{
		{"by", `<div class="byline">By Will Smale</div>`, "Will Smale", ""},
		{"trailing date", `<p class="byline">Lydia Dishman 05.24.16 5:42 AM</p>`, "Lydia Dishman", "2016-05-24T05:42:00Z"},
		{"joined elements", `<div class="author-info"><span class="author-name">Kelly Sheridan</span><span class="section">News</span></div>`,
			"Kelly Sheridan", ""},
		{"role", `<div class="byline"><a href="/contributors/gina-hall">Gina Hall</a> Contributor</div>`, "Gina Hall", ""},
		{"author link first", `<div class="post-author">Written by <a href="/author/ana">Ana Ruiz</a> in Travel</div>`, "Ana Ruiz", ""},
		{"one word is no byline name", `<div class="byline">Staff</div>`, "", ""},
		{"a role is no name's end when one word is left", `<div class="byline">Reuters Staff</div>`, "Reuters Staff", ""},
		{"declared name kept as written", `<meta name="author" content="Reuters Staff">`, "Reuters Staff", ""},
		{"JSON-LD name kept as written",
			`<script type="application/ld+json">{"@type":"NewsArticle","author":{"@type":"Organization","name":"The Editors"}}</script>`,
			"The Editors", ""},
		{"meta author", `<meta name="author" content="By Sam Reed"><span class="date">Posted on March 3, 2024 at 4:15 pm</span>`,
			"Sam Reed", "2024-03-03T16:15:00Z"},
		{"time element", `<time datetime="2024-03-03T10:00:00+01:00">3 March</time>`, "", "2024-03-03T09:00:00Z"},
		{"date id", `<div id="article-date">12 February 2023</div>`, "", "2023-02-12T00:00:00Z"},
		{"weekday and zone", `<div class="timestamp">Tuesday, May 24, 2016 9:05 a.m. EDT</div>`, "", "2016-05-24T13:05:00Z"},
		{"iso in text", `<span class="published">Published 2021-07-09</span>`, "", "2021-07-09T00:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := metadataOf(t, tc.body)
			if m.Author != tc.author || m.Date != tc.date {
				t.Errorf("author %q, date %q; want %q, %q", m.Author, m.Date, tc.author, tc.date)
			}
		})
	}
	if m := metadataOf(t, `<div class="byline">`+strings.Repeat("word ", 30)+`</div>`); m.Author != "" {
		t.Errorf("a 150-character byline gave author %q", m.Author)
	}
}

// The logo falls back to the icons as metascraper-logo-favicon ranks
// them: square first, then width times the kind's weight.
func TestLogoFromIcons(t *testing.T) {
	for _, tc := range []struct{ name, head, want string }{
		{"png beats a larger ico", `<link rel="icon" href="/favicon.ico" sizes="48x48"><link rel="icon" href="/icon-32.png" sizes="32x32">`,
			"https://news.example/icon-32.png"},
		{"size from the URL", `<link rel="icon" href="/favicon-16x16.png"><link rel="icon" href="/favicon-96x96.png">`,
			"https://news.example/favicon-96x96.png"},
		{"square before wide", `<link rel="icon" href="/wide.png" sizes="300x100"><link rel="apple-touch-icon" href="/touch.png" sizes="180x180">`,
			"https://news.example/touch.png"},
		{"tile image", `<meta name="msapplication-TileColor" content="#da532c"><meta name="msapplication-TileImage" content="/mstile-144x144.png">`,
			"https://news.example/mstile-144x144.png"},
		{"JSON-LD logo first", `<link rel="icon" href="/icon.png"><script type="application/ld+json">{"@type":"Organization","logo":"/brand.svg"}</script>`,
			"https://news.example/brand.svg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, _ := url.Parse("https://news.example/story")
			d, _ := content.Parse([]byte("<html><head>"+tc.head+"</head><body></body></html>"), "text/html", u)
			m := content.ExtractMetadata(d)
			if m.Logo != tc.want {
				t.Errorf("logo %q, want %q", m.Logo, tc.want)
			}
		})
	}
	// Icons added later (a manifest's) take part in the choice.
	u, _ := url.Parse("https://news.example/story")
	d, _ := content.Parse([]byte(`<html><head><link rel="icon" href="/favicon.ico"></head></html>`), "text/html", u)
	m := content.ExtractMetadata(d)
	m.AddIcons(content.Icon{URL: "https://news.example/android-192.png", Sizes: "192x192", Source: "manifest"})
	if m.Logo != "https://news.example/android-192.png" {
		t.Errorf("after the manifest: logo %q", m.Logo)
	}
}
