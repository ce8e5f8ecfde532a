package sitediag_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/png"
	"log"
	"net/http"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/browser"
)

// A screenshot of a page served on loopback, which the operator allows.
// It needs Chromium, so go test compiles it but does not run it; the
// browser tests run the same calls.
func ExampleClient_Screenshot() {
	site := serveExample(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><body style="background:#036;color:#fff"><h1>Hello</h1>`)
	})
	defer site.Close()

	res, err := site.Client.Screenshot(context.Background(), site.URL, sitediag.ScreenshotOptions{
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
// these run without Chromium, here on the default client.
func ExampleScreenshot_invalid() {
	ctx := context.Background()
	_, err := sitediag.Screenshot(ctx, "ftp://example.com/", sitediag.ScreenshotOptions{})
	fmt.Println(sitediag.CodeOf(err))
	_, err = sitediag.Screenshot(ctx, "https://example.com/", sitediag.ScreenshotOptions{ShotOptions: browser.ShotOptions{Type: "gif"}})
	fmt.Println(err)
	// Output:
	// INVALID_URL
	// sitediag: INVALID_PARAMETERS: type: must be png, jpeg or webp
}
