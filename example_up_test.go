package sitediag_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/sitediag/sitediag"
)

func ExampleClient_Up() {
	site := serveExample(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	defer site.Close()

	res, err := site.Client.Up(context.Background(), site.URL+"/old", sitediag.UpOptions{})
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
