package sitediag_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/netip"

	"github.com/sitediag/sitediag"
)

// An audit of a page served on loopback, which the operator allows, for
// its SEO and accessibility only. It needs Node, the lighthouse package
// (make setup) and Chromium, so go test compiles it but does not run it;
// the lighthouse and httpapi tests run the same calls.
func ExampleClient_Lighthouse() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html lang="en"><title>Hello</title><h1>Hello</h1>`)
	}))
	defer srv.Close()

	c, err := sitediag.New(sitediag.Config{
		AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	res, err := c.Lighthouse(context.Background(), srv.URL, sitediag.LighthouseOptions{
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
// is involved, so these run without Node or Chromium: a flag off the
// allow list (a file, a port, a Chrome flag…) is named in the error.
func ExampleClient_Lighthouse_invalid() {
	c, err := sitediag.New(sitediag.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()

	_, err = c.Lighthouse(ctx, "ftp://example.com/", sitediag.LighthouseOptions{})
	fmt.Println(sitediag.CodeOf(err))
	_, err = c.Lighthouse(ctx, "https://example.com/", sitediag.LighthouseOptions{Parameters: []string{"--chrome-flags=--no-sandbox"}})
	fmt.Println(err)
	_, err = c.Lighthouse(ctx, "https://example.com/", sitediag.LighthouseOptions{Device: "tablet"})
	fmt.Println(sitediag.CodeOf(err))
	// Output:
	// INVALID_URL
	// sitediag: INVALID_PARAMETERS: parameters: --chrome-flags: is not an allowed audit flag
	// INVALID_PARAMETERS
}
