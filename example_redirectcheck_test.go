package sitediag_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/sitediag/sitediag"
)

func ExampleClient_RedirectCheck() {
	site := serveExample(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a":
			http.Redirect(w, r, "/b", http.StatusFound)
		case "/b":
			http.Redirect(w, r, "/c", http.StatusPermanentRedirect)
		default:
			w.WriteHeader(http.StatusOK)
		}
	})
	defer site.Close()

	res, err := site.Client.RedirectCheck(context.Background(), site.URL+"/a", sitediag.RedirectCheckOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, hop := range res.Hops {
		for _, h := range hop.Headers {
			if h.Name == "location" {
				fmt.Println(hop.Status, "->", h.Value)
			}
		}
		if hop.Status == http.StatusOK {
			fmt.Println(hop.Status)
		}
	}
	// Output:
	// 302 -> /b
	// 308 -> /c
	// 200
}
