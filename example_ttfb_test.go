package sitediag_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/sitediag/sitediag"
)

func ExampleClient_TTFB() {
	site := serveExample(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "hello")
	})
	defer site.Close()

	res, err := site.Client.TTFB(context.Background(), site.URL, sitediag.TTFBOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("measured:", res.TTFB > 0)
	fmt.Println("redirected:", res.RedirectedURL != res.URL)
	// Output:
	// measured: true
	// redirected: false
}
