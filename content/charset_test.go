package content_test

import (
	"net/url"
	"testing"

	"github.com/sitediag/sitediag/content"
	"github.com/sitediag/sitediag/internal/charsettest"
)

// charsetPages are charsettest's pages (served with no charset in the
// header), with the character set Chromium decodes each from and the
// title it then reads. The root package's TestCharsetAsChromium checks
// the same pages against Chromium itself.
var charsetPages = []struct{ name, charset, title string }{
	// <meta charset> after the first 1024 bytes, still in the head.
	{"utf8-late-meta.html", "utf-8", "Café – à la carte"},
	{"latin2-late-meta.html", "iso-8859-2", "Łódź - przewodnik"},
	// No declaration: windows-1252, UTF-8 bytes or not (Chromium does
	// not take UTF-8 from the content of a page served over http).
	{"utf8-no-meta.html", "windows-1252", "CafÃ© â€“ Ã la carte"},
	{"utf8-short-no-meta.html", "windows-1252", "CafÃ© â€“ Ã la carte"},
	{"cp1252-no-meta.html", "windows-1252", "Café – à la carte"},
	// A <meta charset> in the body, past 1024 bytes, is not read.
	{"cp1252-meta-in-body.html", "windows-1252", "Café – à la carte"},
}

func TestParseCharset(t *testing.T) {
	bodies := map[string][]byte{}
	for _, p := range charsettest.Pages() {
		bodies[p.Name] = p.Body
	}
	if len(bodies) != len(charsetPages) {
		t.Fatalf("%d pages, %d expected readings", len(bodies), len(charsetPages))
	}
	for _, p := range charsetPages {
		t.Run(p.name, func(t *testing.T) {
			body, ok := bodies[p.name]
			if !ok {
				t.Fatal("no such page in charsettest")
			}
			u, _ := url.Parse("http://site.test/" + p.name)
			d, err := content.Parse(body, "text/html", u)
			if err != nil {
				t.Fatal(err)
			}
			if m := content.ExtractMetadata(d); m.Charset != p.charset || m.Title != p.title {
				t.Errorf("charset %q, title %q; want %q, %q", m.Charset, m.Title, p.charset, p.title)
			}
		})
	}
	// The header's charset and a byte order mark come first.
	u, _ := url.Parse("http://site.test/")
	for _, tc := range []struct{ body, contentType, want string }{
		{"<meta charset=utf-8><title>x</title>", "text/html; charset=iso-8859-2", "iso-8859-2"},
		{"\xef\xbb\xbf<meta charset=iso-8859-2><title>x</title>", "text/html", "utf-8"},
		{`<meta http-equiv="content-type" content="text/html;charset='koi8-r'">`, "", "koi8-r"},
		{`<meta content="text/html; charset=koi8-r">`, "", "windows-1252"}, // no pragma
		{`<meta charset="utf-16le"><title>x</title>`, "", "utf-8"},
	} {
		d, err := content.Parse([]byte(tc.body), tc.contentType, u)
		if err != nil || d.Charset != tc.want {
			t.Errorf("%q (%s): charset %q, want %q (%v)", tc.body, tc.contentType, d.Charset, tc.want, err)
		}
	}
}
