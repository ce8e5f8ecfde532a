package sitediag_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"strings"

	"github.com/sitediag/sitediag"
)

func ExampleClient_HTTPHeader() {
	site := serveExample(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["X-Served-By"] = []string{"example"}
		w.Header()["Set-Cookie"] = []string{"session=1; HttpOnly", "theme=dark"}
	})
	defer site.Close()

	res, err := site.Client.HTTPHeader(context.Background(), site.URL, sitediag.HTTPHeaderOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range res.Headers {
		if h.Name == "set-cookie" || strings.HasPrefix(h.Name, "x-") {
			fmt.Printf("%s: %s\n", h.Name, h.Value)
		}
	}
	// Output:
	// set-cookie: session=1; HttpOnly
	// set-cookie: theme=dark
	// x-served-by: example
}
