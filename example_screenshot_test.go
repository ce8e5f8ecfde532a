package sitediag_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/png"
	"log"
	"net/http"
	"net/http/httptest"
	"net/netip"

	"github.com/sitediag/sitediag"
)

// A screenshot of a page served on loopback, which the operator allows.
// Needs Chromium.
func ExampleClient_Screenshot() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><body style="background:#036;color:#fff"><h1>Hello</h1>`)
	}))
	defer srv.Close()

	c, err := sitediag.New(sitediag.Config{
		AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	res, err := c.Screenshot(context.Background(), srv.URL, sitediag.ScreenshotOptions{
		ViewportWidth:  800,
		ViewportHeight: 600,
	})
	if err != nil {
		log.Fatal(err)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(res.Image))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(format, cfg.Width, cfg.Height, "refused:", res.BlockedRequests)
	// Output: png 800 600 refused: 0
}
