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
