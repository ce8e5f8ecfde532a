package sitediag_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/sitediag/sitediag"
)

func ExampleClient_TTFB() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "hello")
	}))
	defer site.Close()
	c := exampleClient()
	defer c.Close()

	res, err := c.TTFB(context.Background(), site.URL, sitediag.TTFBOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("measured:", res.TTFB > 0)
	fmt.Println("redirected:", res.RedirectedURL != res.URL)
	// Output:
	// measured: true
	// redirected: false
}
