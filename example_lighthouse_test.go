package sitediag_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/sitediag/sitediag"
)

// An audit of a page served on loopback, which the operator allows, for
// its SEO and accessibility only. It needs Node, the lighthouse package
// (make setup) and Chromium, so go test compiles it but does not run it;
// the lighthouse and httpapi tests run the same calls.
func ExampleClient_Lighthouse() {
	site := serveExample(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html lang="en"><title>Hello</title><h1>Hello</h1>`)
	})
	defer site.Close()

	res, err := site.Client.Lighthouse(context.Background(), site.URL, sitediag.LighthouseOptions{
		Device:     "mobile",
		Parameters: []string{"--only-categories=seo,accessibility"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("SEO", *res.Scores.SEO, "accessibility", *res.Scores.Accessibility, "audited", res.RedirectedURL)
	fmt.Println(len(res.HTMLReport), "bytes of HTML report")
}

// The URL, the device and the parameters are checked before Lighthouse
// is involved, so these run without Node or Chromium, here on the
// default client: a flag off the allow list (a file, a port, a Chrome
// flag…) is named in the error.
func ExampleLighthouse_invalid() {
	ctx := context.Background()
	_, err := sitediag.Lighthouse(ctx, "ftp://example.com/", sitediag.LighthouseOptions{})
	fmt.Println(sitediag.CodeOf(err))
	_, err = sitediag.Lighthouse(ctx, "https://example.com/", sitediag.LighthouseOptions{Parameters: []string{"--chrome-flags=--no-sandbox"}})
	fmt.Println(err)
	_, err = sitediag.Lighthouse(ctx, "https://example.com/", sitediag.LighthouseOptions{Device: "tablet"})
	fmt.Println(sitediag.CodeOf(err))
	// Output:
	// INVALID_URL
	// sitediag: INVALID_PARAMETERS: parameters: --chrome-flags: is not an allowed audit flag
	// INVALID_PARAMETERS
}
