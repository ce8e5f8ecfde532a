package content_test

import (
	"net/url"
	"testing"

	"github.com/sitediag/sitediag/content"
)

// Headline fields chosen and normalized as metascraper does on the
// markup real sites write.
func TestMetadataAsMetascraper(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		field      func(*content.Metadata) string
		want       string
	}{
		{"news dateline dropped from the description",
			`<meta name="description" content="WASHINGTON — The Senate passed the spending bill late on Friday.">`,
			description, "The Senate passed the spending bill late on Friday."},
		{"a description cut short ends in an ellipsis",
			`<meta property="og:description" content="Our best advice for a better loaf, from starter to crust ...">`,
			description, "Our best advice for a better loaf, from starter to crust…"},
		{"a description with capitals but no dateline is kept",
			`<meta name="description" content="NASA launches its new telescope - the first in a decade.">`,
			description, "NASA launches its new telescope - the first in a decade."},
		{"utm parameters, host case and doubled slashes normalized",
			`<meta property="og:url" content="https://Shop.Example.COM:443/sale/?utm_source=facebook&id=5&UTM_Medium=social">
			<meta property="og:image" content="https://cdn.shop.example//images//sale.jpg?utm_campaign=spring">`,
			func(m *content.Metadata) string { return m.URL + " " + m.Image },
			"https://shop.example.com/sale/?id=5 https://cdn.shop.example/images/sale.jpg"},
		{"the final URL is kept as fetched", ``, func(m *content.Metadata) string { return m.URL },
			"https://news.example//2024/story?utm_source=feed"},
		{"og:site_name before the name of a node the publisher refers to",
			`<meta property="og:site_name" content="Acme Blog"><script type="application/ld+json">{"@graph":[
			{"@type":"Article","publisher":{"@id":"https://news.example/#org"}},
			{"@type":"Organization","@id":"https://news.example/#org","name":"Acme Inc."}]}</script>`,
			publisher, "Acme Blog"},
		{"a publisher name written in the article before og:site_name",
			`<meta property="og:site_name" content="Acme Blog"><script type="application/ld+json">
			{"@type":"Article","publisher":{"@type":"Organization","name":"Acme Inc."}}</script>`,
			publisher, "Acme Inc."},
		{"a referred publisher when nothing else names the site",
			`<script type="application/ld+json">{"@graph":[{"@type":"Article","publisher":{"@id":"#org"}},
			{"@type":"Organization","@id":"#org","name":"Acme Inc."}]}</script>`,
			publisher, "Acme Inc."},
		{"App Links app name", `<meta property="al:ios:app_name" content="Metro Ledger">`, publisher, "Metro Ledger"},
		{"Google Play app name", `<meta name="twitter:app:name:googleplay" content="Metro Play">`, publisher, "Metro Play"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, _ := url.Parse("https://news.example//2024/story?utm_source=feed")
			d, err := content.Parse([]byte("<html><head><title>Story</title>"+tc.head+"</head><body></body></html>"),
				"text/html; charset=utf-8", u)
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.field(content.ExtractMetadata(d)); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func description(m *content.Metadata) string { return m.Description }
func publisher(m *content.Metadata) string   { return m.Publisher }
