package sitediag_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/sitediag/sitediag"
)

func ExampleClient_LoadTime() {
	site := serveExampleTLS(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "hello")
	})
	defer site.Close()

	res, err := site.Client.LoadTime(context.Background(), site.URL, sitediag.LoadTimeOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.StatusCode, res.ReasonPhrase, res.Network.Protocol, res.Network.BytesRead, "bytes")
	fmt.Println("content-type:", res.Headers["content-type"])
	fmt.Println("ttfb <= total:", res.Timings.TTFB <= res.Timings.Total)
	fmt.Println("http2:", res.ProtocolSupport.HTTP2)
	// Output:
	// 200 OK HTTP/2.0 5 bytes
	// content-type: text/plain
	// ttfb <= total: true
	// http2: true
}
