package sitediag_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/sitediag/sitediag"
)

// The metadata of a page served on loopback, which the operator allows,
// read with one HTTP request and no browser (RenderJS off).
func ExampleClient_MetaScrape() {
	site := serveExample(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html lang="en"><head><title>Spring sale | Corner Shop</title>
			<meta property="og:title" content="Spring sale: 30% off">
			<meta property="og:image" content="/img/sale.jpg">
			<meta property="article:published_time" content="2026-03-01T09:00:00+01:00"></head><body></body></html>`)
	})
	defer site.Close()

	res, err := site.Client.MetaScrape(context.Background(), site.URL+"/sale", sitediag.MetaScrapeOptions{RenderJS: sitediag.Off})
	if err != nil {
		log.Fatal(err)
	}
	m := res.Metadata
	fmt.Println(m.Title)
	fmt.Println(m.Image == site.URL+"/img/sale.jpg", m.Date, m.Publisher, m.Lang)
	// Output:
	// Spring sale: 30% off
	// true 2026-03-01T08:00:00Z Corner Shop en
}

// A page's main content as Markdown, navigation and footer removed.
func ExampleClient_WebScrape() {
	site := serveExample(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><body><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav>
			<article><h1>Repairing a bike chain</h1>
			<p>A broken chain can be fixed at the roadside with a chain tool and a quick link, in about ten minutes.</p>
			<p>Remove the damaged link with the tool, join the two ends with the quick link, and pedal backwards to check it runs smoothly.</p></article>
			<footer>© Corner Cycles</footer></body></html>`)
	})
	defer site.Close()

	res, err := site.Client.WebScrape(context.Background(), site.URL, sitediag.WebScrapeOptions{
		RenderJS: sitediag.Off,
		Format:   sitediag.ScrapeFormats{"markdown-llm"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content["markdown-llm"])
	// Output:
	// ## Repairing a bike chain
	//
	// A broken chain can be fixed at the roadside with a chain tool and a quick link, in about ten minutes.
	//
	// Remove the damaged link with the tool, join the two ends with the quick link, and pedal backwards to check it runs smoothly.
}

// Mixed content needs Chromium; options and the URL are checked before
// any browser is involved, so this runs without it.
func ExampleClient_MixedContent() {
	c := exampleClient()
	defer c.Close()
	ctx := context.Background()
	_, err := c.MixedContent(ctx, "http://169.254.169.254/", sitediag.MixedContentOptions{
		PageOptions: sitediag.PageOptions{Device: "watch"},
	})
	fmt.Println(err)
	_, err = c.MixedContent(ctx, "file:///etc/passwd", sitediag.MixedContentOptions{})
	fmt.Println(sitediag.CodeOf(err))
	// Output:
	// sitediag: INVALID_PARAMETERS: device: must be desktop or mobile
	// INVALID_URL
}
