package content

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"codeberg.org/readeck/go-readability/v2"
	"codeberg.org/readeck/go-readability/v2/render"
	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/sitediag/sitediag/internal/htmlx"
)

// Format is a form WebScrape returns a page in.
type Format string

// The formats. The -llm forms are the page's main content only, as
// Readability finds it: navigation, ads, footers, cookie banners and
// comments removed.
const (
	HTML        Format = "html"
	Markdown    Format = "markdown"
	Text        Format = "text"
	JSON        Format = "json"
	HTMLLLM     Format = "html-llm"
	MarkdownLLM Format = "markdown-llm"
	TextLLM     Format = "text-llm"
)

// Ext is the file extension of a page in the format: html, md, txt or
// json.
func (f Format) Ext() string {
	switch f {
	case HTML, HTMLLLM:
		return "html"
	case Markdown, MarkdownLLM:
		return "md"
	case Text, TextLLM:
		return "txt"
	}
	return "json"
}

// Formats lists every Format.
func Formats() []Format {
	return []Format{HTML, Markdown, Text, JSON, HTMLLLM, MarkdownLLM, TextLLM}
}

// ErrNoContent means Readability found no main content in the page.
var ErrNoContent = errors.New("content: no main content found")

// Render returns d in format f: a string, or for JSON a *Outline.
func Render(d *Document, f Format) (any, error) {
	switch f {
	case HTML:
		return d.Doc.Html()
	case Markdown:
		return d.markdown(d.root())
	case Text:
		return pageText(d), nil
	case JSON:
		return NewOutline(d)
	}
	article, err := d.article()
	if err != nil {
		return nil, err
	}
	switch f {
	case HTMLLLM:
		var b bytes.Buffer
		if err := article.RenderHTML(&b); err != nil {
			return nil, err
		}
		return b.String(), nil
	case MarkdownLLM:
		return d.markdown(article.Node)
	case TextLLM:
		return tidyText(render.InnerText(article.Node)), nil
	}
	return nil, fmt.Errorf("content: unknown format %q", f)
}

// root is the document's <html> node.
func (d *Document) root() *html.Node {
	if len(d.Doc.Nodes) == 0 {
		return nil
	}
	return d.Doc.Nodes[0]
}

// article runs Readability on a copy of the document.
func (d *Document) article() (readability.Article, error) {
	parser := readability.NewParser()
	a, err := parser.ParseDocument(d.root(), d.base())
	if err != nil {
		return a, fmt.Errorf("content: %w", err)
	}
	if a.Node == nil {
		return a, ErrNoContent
	}
	return a, nil
}

// markdown converts n to Markdown, links made absolute.
func (d *Document) markdown(n *html.Node) (string, error) {
	if n == nil {
		return "", nil
	}
	b, err := htmltomarkdown.ConvertNode(n, converter.WithDomain(d.base().String()))
	if err != nil {
		return "", fmt.Errorf("content: markdown: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// pageText is the visible text of the whole page, as innerText lays it
// out.
func pageText(d *Document) string {
	body := d.Doc.Find("body")
	if body.Length() == 0 {
		return ""
	}
	clone := body.Clone()
	clone.Find("script, style, noscript, template, svg").Remove()
	return tidyText(render.InnerText(clone.Nodes[0]))
}

// tidyText trims each line and drops runs of blank lines.
func tidyText(s string) string {
	var out []string
	blank := false
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// Outline is the json format: the page's title, metadata, heading
// outline, links, images and main text.
type Outline struct {
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Lang        string    `json:"lang"`
	Canonical   string    `json:"canonical"`
	Headings    []Heading `json:"headings"`
	Links       []Link    `json:"links"`
	Images      []Image   `json:"images"`
	// Text is the main content's text ("" when Readability found none).
	Text string `json:"text"`
}

// Heading is one h1–h6.
type Heading struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
}

// Link is one a[href], absolute.
type Link struct {
	URL  string `json:"url"`
	Text string `json:"text"`
	Rel  string `json:"rel,omitempty"`
}

// Image is one img, absolute.
type Image struct {
	URL string `json:"url"`
	Alt string `json:"alt"`
}

// NewOutline builds d's Outline.
func NewOutline(d *Document) (*Outline, error) {
	m := ExtractMetadata(d)
	o := &Outline{
		Title: m.Title, Description: m.Description, Lang: m.Lang, Canonical: m.Canonical,
		Headings: []Heading{}, Links: []Link{}, Images: []Image{},
	}
	d.Doc.Find("h1, h2, h3, h4, h5, h6").Each(func(_ int, h *goquery.Selection) {
		if t := clean(h.Text()); t != "" {
			o.Headings = append(o.Headings, Heading{Level: int(goquery.NodeName(h)[1] - '0'), Text: t})
		}
	})
	base := d.base()
	d.Doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		if u := htmlx.Resolve(base, a.AttrOr("href", "")); u != nil {
			o.Links = append(o.Links, Link{URL: u.String(), Text: clean(a.Text()), Rel: clean(a.AttrOr("rel", ""))})
		}
	})
	d.Doc.Find("img").Each(func(_ int, img *goquery.Selection) {
		src := img.AttrOr("src", "")
		if src == "" {
			if set := htmlx.SrcsetURLs(img.AttrOr("srcset", "")); len(set) > 0 {
				src = set[0]
			}
		}
		if u := d.resolve(src); u != "" {
			o.Images = append(o.Images, Image{URL: u, Alt: clean(img.AttrOr("alt", ""))})
		}
	})
	if a, err := d.article(); err == nil {
		o.Text = tidyText(render.InnerText(a.Node))
	}
	return o, nil
}
