package htmlx_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/sitediag/sitediag/internal/htmlx"
)

func TestLinks(t *testing.T) {
	page, _ := url.Parse("https://site.test/dir/page.html?q=1")
	for _, tc := range []struct {
		name string
		html string
		want []string // "kind attr url"
	}{
		{"every element", `
			<a href="/a">a</a><area href="area.html">
			<img src="img.png" srcset="img-2x.png 2x, /img-3x.png 3x">
			<script src="//cdn.test/app.js"></script>
			<link rel="stylesheet" href="style.css"><link rel="preconnect" href="https://fonts.test">
			<link rel="DNS-Prefetch" href="https://dns.test"><link rel="icon" href="/favicon.ico">
			<iframe src="frame.html"></iframe>
			<picture><source srcset="pic.webp 1x" type="image/webp"></picture>
			<video src="v.mp4"><track src="subs.vtt"></video><audio src="a.mp3"><source src="a.ogg"></audio>
			<object data="obj.swf"></object>`,
			[]string{
				"a href https://site.test/a", "area href https://site.test/dir/area.html",
				"img src https://site.test/dir/img.png", "img srcset https://site.test/dir/img-2x.png", "img srcset https://site.test/img-3x.png",
				"script src https://cdn.test/app.js", "link href https://site.test/dir/style.css", "link href https://site.test/favicon.ico",
				"iframe src https://site.test/dir/frame.html",
				"source srcset https://site.test/dir/pic.webp", "video src https://site.test/dir/v.mp4",
				"track src https://site.test/dir/subs.vtt", "audio src https://site.test/dir/a.mp3",
				"source src https://site.test/dir/a.ogg", "object data https://site.test/dir/obj.swf",
			}},
		{"base href, fragments, duplicates", `
			<head><base href="https://other.test/base/"></head>
			<a href="x#top">1</a><a href="x">2</a><a href="#frag">3</a><img src="x">`,
			[]string{"a href https://other.test/base/x", "a href https://other.test/base/"}},
		{"frameset", `<html><frameset><frame src="f1.html"><frame src="/f2.html"></frameset></html>`,
			[]string{"frame src https://site.test/dir/f1.html", "frame src https://site.test/f2.html"}},
		{"relative base href", `<base href="/sub/"><a href="y">`, []string{"a href https://site.test/sub/y"}},
		{"skipped schemes and empty values", `
			<a href="mailto:a@site.test">m</a><a href="tel:+1">t</a><a href="javascript:void(0)">j</a>
			<img src="data:image/png;base64,AAAA"><a href="ftp://site.test/f">f</a><a href="">e</a><a href="   ">s</a>
			<a href="http://[::1">bad</a><a href=" http://spaced.test/ ">ok</a>`,
			[]string{"a href http://spaced.test/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := htmlx.Parse(strings.NewReader(tc.html))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range htmlx.Links(doc, page) {
				got = append(got, l.Kind+" "+l.Attr+" "+l.URL.String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestSrcsetURLs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"a.png", []string{"a.png"}},
		{"a.png 1x, b.png 2x", []string{"a.png", "b.png"}},
		{"a.png 100w,b.png 200w", []string{"a.png", "b.png"}},
		{"a.png,b.png", []string{"a.png,b.png"}},
		{"a.png, b.png,", []string{"a.png", "b.png"}},
		{" , a.png 1x (foo, bar), c.png", []string{"a.png", "c.png"}},
		{"image.jpg?x=1,2 2x", []string{"image.jpg?x=1,2"}},
		{"", nil},
	} {
		if got := htmlx.SrcsetURLs(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("SrcsetURLs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
