package sitediag_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"

	"github.com/sitediag/sitediag"
)

// exampleClient returns a client that may reach the loopback fixture an
// example starts, as an operator would exempt an internal network.
func exampleClient() *sitediag.Client {
	c, err := sitediag.New(sitediag.Config{
		AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
	})
	if err != nil {
		panic(err)
	}
	return c
}

func ExampleClient_Up() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer site.Close()

	c := exampleClient()
	defer c.Close()
	res, err := c.Up(context.Background(), site.URL+"/old", sitediag.UpOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Reachable, res.StatusCode, res.ReasonPhrase)
	// Output: true 200 OK
}

func ExampleUp_refused() {
	// The default client refuses loopback, private and metadata addresses.
	_, err := sitediag.Up(context.Background(), "http://169.254.169.254/latest/meta-data/", sitediag.UpOptions{})
	fmt.Println(sitediag.CodeOf(err))
	_, err = sitediag.Up(context.Background(), "http://0x7f.1/", sitediag.UpOptions{})
	fmt.Println(sitediag.CodeOf(err))
	// Output:
	// TARGET_NOT_ALLOWED
	// INVALID_URL
}
