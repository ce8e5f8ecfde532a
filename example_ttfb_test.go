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

// probeExampleClient is a client that may reach the loopback fixtures of the
// examples, as an operator would allow an internal network.
func probeExampleClient() *sitediag.Client {
	c, err := sitediag.New(sitediag.Config{AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	if err != nil {
		log.Fatal(err)
	}
	return c
}

func ExampleClient_TTFB() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "hello")
	}))
	defer site.Close()
	c := probeExampleClient()
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
