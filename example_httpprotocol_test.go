package sitediag_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/sitediag/sitediag"
)

func ExampleClient_HTTPProtocol() {
	site := serveExampleTLS(func(w http.ResponseWriter, r *http.Request) {})
	defer site.Close()

	res, err := site.Client.HTTPProtocol(context.Background(), site.URL, sitediag.HTTPProtocolOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("HTTP/1.0 %v, HTTP/1.1 %v, HTTP/2 %v, HTTP/3 %v\n", res.HTTP10, res.HTTP11, res.HTTP2, res.HTTP3)
	// Output:
	// HTTP/1.0 true, HTTP/1.1 true, HTTP/2 true, HTTP/3 false
}
