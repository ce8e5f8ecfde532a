package content_test

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sitediag/sitediag/content"
)

func TestRenderFormats(t *testing.T) {
	d := corpusDoc(t, "news-article.html")
	render := func(f content.Format) string {
		t.Helper()
		v, err := content.Render(d, f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		s, _ := v.(string)
		return s
	}
	main := "The city council voted 31 to 12 on Tuesday night"
	chrome := []string{"We use cookies", "Related stories", "About time!", "© 2026", "Subscribe"}
	for _, tc := range []struct {
		format content.Format
		has    []string
		lacks  []string
	}{
		{content.HTML, []string{"<html", `<meta property="og:title"`, main, "We use cookies"}, nil},
		{content.Markdown, []string{"[News](http://site.test/news)", main, "## Businesses divided"}, []string{"<p>"}},
		{content.Text, []string{main, "We use cookies", "Related stories"}, []string{"<p>", "summary_large_image"}},
		{content.HTMLLLM, []string{"<p>", main}, chrome},
		{content.MarkdownLLM, []string{"## Businesses divided", main, "![Cyclists on Bridge Street](https://cdn.gazette.example/img/cycle-lanes-1200.jpg)"}, chrome},
		{content.TextLLM, []string{main, "Businesses divided"}, append([]string{"<p>", "##"}, chrome...)},
	} {
		got := render(tc.format)
		for _, s := range tc.has {
			if !strings.Contains(got, s) {
				t.Errorf("%s lacks %q", tc.format, s)
			}
		}
		for _, s := range tc.lacks {
			if strings.Contains(got, s) {
				t.Errorf("%s has %q", tc.format, s)
			}
		}
	}
}

func TestRenderNoMainContent(t *testing.T) {
	u, _ := url.Parse("http://site.test/")
	d, _ := content.ParseText("<html><body></body></html>", u)
	if _, err := content.Render(d, content.TextLLM); !errors.Is(err, content.ErrNoContent) {
		t.Errorf("empty page: got %v, want ErrNoContent", err)
	}
	if _, err := content.Render(d, "pdf"); err == nil {
		t.Error("unknown format: no error")
	}
}

func TestOutline(t *testing.T) {
	o, err := content.NewOutline(corpusDoc(t, "base-relative.html"))
	if err != nil {
		t.Fatal(err)
	}
	if o.Title != "The Lighthouse Keeper's Logbooks" || o.Lang != "en" {
		t.Errorf("title %q lang %q", o.Title, o.Lang)
	}
	if diff := cmp.Diff([]content.Heading{{Level: 1, Text: "The Lighthouse Keeper's Logbooks"}}, o.Headings); diff != "" {
		t.Errorf("headings (-want +got):\n%s", diff)
	}
	wantLinks := []content.Link{
		{URL: "https://static.museum.example/", Text: "Home"},
		{URL: "https://static.museum.example/visit/", Text: "Visit"},
		{URL: "https://static.museum.example/collections/2025/", Text: "Collections"},
	}
	if diff := cmp.Diff(wantLinks, o.Links); diff != "" {
		t.Errorf("links, resolved against <base> (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]content.Image{{URL: "https://static.museum.example/collections/2025/images/logbook-open.jpg", Alt: "An open logbook from 1903"}}, o.Images); diff != "" {
		t.Errorf("images (-want +got):\n%s", diff)
	}
	if !strings.Contains(o.Text, "great storm of 1911") {
		t.Errorf("main text: %q", o.Text)
	}
}

func TestSchemaExtract(t *testing.T) {
	var s content.Schema
	err := json.Unmarshal([]byte(`{"name":"products","baseSelector":"li.product","fields":[
		{"name":"name","selector":".name","type":"text"},
		{"name":"price","selector":".price"},
		{"name":"link","selector":"a","type":"attribute","attribute":"href"},
		{"name":"image","selector":"img","type":"nested","fields":[{"name":"src","type":"attribute","attribute":"src"},{"name":"alt","type":"attribute","attribute":"alt"}]},
		{"name":"missing","selector":".rating","type":"text"}]}`), &s)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	got := s.Extract(corpusDoc(t, "category-listing.html"))
	want := []map[string]any{
		{"name": "JetLite 2 gas stove", "price": "$89.95", "link": "http://site.test/p/jetlite-2",
			"image": map[string]any{"src": "http://site.test/img/p/jetlite-2.jpg", "alt": "JetLite 2"}, "missing": nil},
		{"name": "MultiFuel X liquid fuel stove", "price": "$219.00", "link": "http://site.test/p/multifuel-x",
			"image": map[string]any{"src": "http://site.test/img/p/multifuel-x.jpg", "alt": "MultiFuel X"}, "missing": nil},
		{"name": "Twig Burner wood stove", "price": "$64.50", "link": "http://site.test/p/twig-burner",
			"image": map[string]any{"src": "http://site.test/img/p/twig-burner.jpg", "alt": "Twig Burner"}, "missing": nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	list := content.Schema{Name: "plans", BaseSelector: ".plans", Fields: []content.Field{
		{Name: "names", Selector: ".plan h2", Type: "list"},
		{Name: "plans", Selector: ".plan", Type: "list", Fields: []content.Field{{Name: "price", Selector: ".price"}}},
	}}
	got = list.Extract(corpusDoc(t, "pricing.html"))
	want = []map[string]any{{
		"names": []any{"Free", "Team", "Enterprise"},
		"plans": []any{map[string]any{"price": "$0"}, map[string]any{"price": "$12 per user / month"}, map[string]any{"price": "Contact us"}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lists (-want +got):\n%s", diff)
	}
}

func TestSchemaCheck(t *testing.T) {
	for _, tc := range []struct {
		schema content.Schema
		field  string
	}{
		{content.Schema{Fields: []content.Field{{Name: "a"}}}, "baseSelector"},
		{content.Schema{BaseSelector: "div[", Fields: []content.Field{{Name: "a"}}}, "baseSelector"},
		{content.Schema{BaseSelector: "div"}, "fields"},
		{content.Schema{BaseSelector: "div", Fields: []content.Field{{Selector: "p"}}}, "fields[0].name"},
		{content.Schema{BaseSelector: "div", Fields: []content.Field{{Name: "a", Selector: "p:::"}}}, "fields[0].selector"},
		{content.Schema{BaseSelector: "div", Fields: []content.Field{{Name: "a", Type: "regex"}}}, "fields[0].type"},
		{content.Schema{BaseSelector: "div", Fields: []content.Field{{Name: "a", Type: "attribute"}}}, "fields[0].attribute"},
		{content.Schema{BaseSelector: "div", Fields: []content.Field{{Name: "a"}, {Name: "b", Type: "nested"}}}, "fields[1].fields"},
	} {
		err := tc.schema.Check()
		var se *content.SchemaError
		if !errors.As(err, &se) || se.Field != tc.field {
			t.Errorf("%+v: got %v, want a SchemaError on %s", tc.schema, err, tc.field)
		}
	}
}

func TestReferences(t *testing.T) {
	u, _ := url.Parse("https://shop.test/")
	d, _ := content.ParseText(`<html><head><link rel="stylesheet" href="http://cdn.test/a.css"><script src="/app.js"></script></head>
		<body><img src="http://img.test/x.png" srcset="http://img.test/x2.png 2x"><iframe src="http://frame.test/"></iframe>
		<form action="http://forms.test/post"></form><a href="http://link.test/">not a resource</a></body></html>`, u)
	want := []content.Reference{
		{URL: "https://shop.test/app.js", Kind: "script"},
		{URL: "http://cdn.test/a.css", Kind: "stylesheet"},
		{URL: "http://img.test/x.png", Kind: "image"},
		{URL: "http://img.test/x2.png", Kind: "image"},
		{URL: "http://frame.test/", Kind: "iframe"},
		{URL: "http://forms.test/post", Kind: "form"},
	}
	if diff := cmp.Diff(want, content.References(d)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
