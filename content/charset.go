package content

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// prescanBytes is how much of a page is always searched for a <meta
// charset>; past it, only while the parser is still in the head (as
// Blink's HTMLMetaCharsetParser does).
const prescanBytes = 1024

// detectCharset names the character set a page's bytes are decoded from,
// in Chromium's order: a byte order mark, the Content-Type header's
// charset, a <meta charset> or <meta http-equiv=Content-Type> in the first
// 1024 bytes or anywhere in the head after them, else windows-1252.
// Chromium does not take UTF-8 from valid UTF-8 bytes (its encoding
// detector may not answer UTF-8 for a page served over http), so neither
// does this, unlike x/net/html/charset's DetermineEncoding. The legacy
// encodings its detector can guess (Shift_JIS, windows-1251, …) from an
// undeclared page are not guessed here. The name is the WHATWG label
// x/net/html/charset uses ("utf-8", "windows-1252", …).
func detectCharset(body []byte, contentType string) string {
	if _, name, certain := charset.DetermineEncoding(body, contentType); certain {
		return name
	}
	if name := metaCharset(body); name != "" {
		return name
	}
	return "windows-1252"
}

// metaCharset is the charset the first <meta> that declares one names,
// searched in the first prescanBytes and then while the tags seen belong
// to the head; "" when there is none.
func metaCharset(body []byte) string {
	z := html.NewTokenizer(bytes.NewReader(body))
	consumed, inHead := 0, true
	for {
		tt := z.Next()
		consumed += len(z.Raw())
		switch tt {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			if tt != html.EndTagToken && tag == "meta" {
				if cs := declaredCharset(z, hasAttr); cs != "" {
					return cs
				}
				continue
			}
			if !headTag(tag, tt == html.EndTagToken) {
				inHead = false
			}
		}
		if !inHead && consumed >= prescanBytes {
			return ""
		}
	}
}

// headTag reports whether a tag keeps Blink's meta charset parser in the
// head section.
func headTag(tag string, end bool) bool {
	switch tag {
	case "script", "noscript", "style", "link", "meta", "object", "title", "base":
		return true
	case "html", "head":
		return !end
	}
	return false
}

// declaredCharset reads a <meta>'s attributes (the tokenizer is on it)
// as the HTML prescan does: charset=, or http-equiv=content-type with a
// content= that names a charset. UTF-16 reads as UTF-8 (a page read as
// ASCII-compatible bytes cannot be UTF-16).
func declaredCharset(z *html.Tokenizer, hasAttr bool) string {
	var fromCharset, fromContent string
	pragma := false
	seen := map[string]bool{}
	for hasAttr {
		var k, v []byte
		k, v, hasAttr = z.TagAttr()
		key := string(k)
		if seen[key] {
			continue
		}
		seen[key] = true
		switch key {
		case "charset":
			fromCharset = string(v)
		case "http-equiv":
			pragma = strings.EqualFold(strings.TrimSpace(string(v)), "content-type")
		case "content":
			fromContent = charsetParam(string(v))
		}
	}
	label := fromCharset
	if label == "" && pragma {
		label = fromContent
	}
	if label == "" {
		return ""
	}
	_, name := charset.Lookup(label)
	if strings.HasPrefix(name, "utf-16") {
		return "utf-8"
	}
	return name
}

// charsetParam extracts the charset from a meta content value ("text/html;
// charset=utf-8"), as the HTML standard's algorithm does.
func charsetParam(content string) string {
	s := strings.ToLower(content)
	for {
		i := strings.Index(s, "charset")
		if i < 0 {
			return ""
		}
		s = strings.TrimLeft(s[i+len("charset"):], " \t\n\f\r")
		if !strings.HasPrefix(s, "=") {
			continue
		}
		s = strings.TrimLeft(s[1:], " \t\n\f\r")
		if s == "" {
			return ""
		}
		if q := s[0]; q == '"' || q == '\'' {
			end := strings.IndexByte(s[1:], q)
			if end < 0 {
				return ""
			}
			return s[1 : 1+end]
		}
		if end := strings.IndexAny(s, " \t\n\f\r;"); end >= 0 {
			return s[:end]
		}
		return s
	}
}
