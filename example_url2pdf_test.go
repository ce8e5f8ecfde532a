package sitediag_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"

	"github.com/sitediag/sitediag"
)

// A PDF of a page served on loopback, which the operator allows, streamed
// from the browser. It needs Chromium, so go test compiles it but does not
// run it; the browser tests run the same calls.
func ExampleClient_URL2PDF() {
	site := serveExample(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><h1>Quarterly report</h1>`)
	})
	defer site.Close()

	res, err := site.Client.URL2PDF(context.Background(), site.URL, sitediag.URL2PDFOptions{Orientation: "landscape"})
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	pdf, err := io.ReadAll(res.Body)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(pdf[:5]), res.Settings.Format, res.Settings.Orientation, res.Settings.Margin.Top, "mm")
}

// Options and the URL are checked before any browser is involved, so
// these run without Chromium, here on the default client.
func ExampleURL2PDF_invalid() {
	ctx := context.Background()
	_, err := sitediag.URL2PDF(ctx, "http://0x7f.1/", sitediag.URL2PDFOptions{})
	fmt.Println(sitediag.CodeOf(err))
	_, err = sitediag.URL2PDF(ctx, "https://example.com/", sitediag.URL2PDFOptions{Format: "a7"})
	fmt.Println(err)
	// Output:
	// INVALID_URL
	// sitediag: INVALID_PARAMETERS: format: must be letter, legal, a0, a1, a2, a3, a4, a5 or a6
}
