package sitediag_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/netip"

	"github.com/sitediag/sitediag"
)

// A PDF of a page served on loopback, which the operator allows, streamed
// from the browser. Needs Chromium.
func ExampleClient_URL2PDF() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><h1>Quarterly report</h1>`)
	}))
	defer srv.Close()

	c, err := sitediag.New(sitediag.Config{
		AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	res, err := c.URL2PDF(context.Background(), srv.URL, sitediag.URL2PDFOptions{Orientation: "landscape"})
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	pdf, err := io.ReadAll(res.Body)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(pdf[:5]), res.Format, res.Orientation, res.Margin.Top, "mm")
	// Output: %PDF- a4 landscape 10 mm
}
