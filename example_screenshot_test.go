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
// It needs Chromium, so go test compiles it but does not run it; the
// browser tests run the same calls.
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
}

// Options and the URL are checked before any browser is involved, so
// these run without Chromium.
func ExampleClient_Screenshot_invalid() {
	c, err := sitediag.New(sitediag.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()

	_, err = c.Screenshot(ctx, "ftp://example.com/", sitediag.ScreenshotOptions{})
	fmt.Println(sitediag.CodeOf(err))
	_, err = c.Screenshot(ctx, "https://example.com/", sitediag.ScreenshotOptions{Type: "gif"})
	fmt.Println(err)
	// Output:
	// INVALID_URL
	// sitediag: INVALID_PARAMETERS: type: must be png, jpeg or webp
}
