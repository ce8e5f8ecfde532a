package sitediag_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"strings"

	"github.com/sitediag/sitediag"
)

func ExampleClient_BrokenLink() {
	site := serveExample(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<a href="/about">About</a> <img src="/logo.png"> <a href="/old-page">Old</a>
				<a href="mailto:team@example.com">Mail us</a>`)
		case "/about", "/logo.png":
			fmt.Fprint(w, "ok")
		default:
			http.NotFound(w, r)
		}
	})
	defer site.Close()

	res, err := site.Client.BrokenLink(context.Background(), site.URL, sitediag.BrokenLinkOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Summary.Broken, "broken of", res.Summary.Total)
	for _, l := range res.Links {
		fmt.Println(l.Status, strings.TrimPrefix(l.Link, site.URL))
	}
	fmt.Printf("%+v\n", res.Summary)
	// Output:
	// 1 broken of 3
	// 200 /about
	// 200 /logo.png
	// 404 /old-page
	// {Total:3 Successful:2 Redirects:0 Broken:1 ServerError:0 Forbidden:0 TimedOut:0}
}
