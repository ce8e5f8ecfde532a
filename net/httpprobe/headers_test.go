package httpprobe_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/sitediag/sitediag/internal/guardtest"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/httpprobe"
	"github.com/sitediag/sitediag/net/netx"
)

func TestHeaders(t *testing.T) {
	g := guardtest.New(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/final", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["X-Custom"] = []string{"one"}
		w.Header()["Set-Cookie"] = []string{"a=1; Path=/", "b=2", "c=3"}
		w.Write([]byte("ok"))
	})
	mux.HandleFunc("/start", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/final", http.StatusMovedPermanently)
	})
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()
	newClient := func(wrap func(net.Conn) net.Conn) netx.Doer {
		return g.NewHTTPClient(guard.HTTPOptions{WrapConn: wrap})
	}

	hops, err := httpprobe.Headers(context.Background(), newClient, siteURL(t, srv, "/start"), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(hops) != 2 || hops[1].Status != 200 {
		t.Fatalf("got %+v, want two hops ending in 200", hops)
	}
	var cookies []string
	for _, h := range hops[1].Headers {
		if h.Name == "set-cookie" {
			cookies = append(cookies, h.Value)
		}
	}
	if want := []string{"a=1; Path=/", "b=2", "c=3"}; !slices.Equal(cookies, want) {
		t.Errorf("set-cookie lines: got %q, want %q", cookies, want)
	}
	if !slices.Contains(hops[1].Headers, httpprobe.Header{Name: "x-custom", Value: "one"}) {
		t.Errorf("x-custom missing: %+v", hops[1].Headers)
	}

	hops, err = httpprobe.Headers(context.Background(), newClient, siteURL(t, srv, "/start"), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(hops) != 1 || hops[0].Status != 301 || !slices.Contains(hops[0].Headers, httpprobe.Header{Name: "location", Value: "/final"}) {
		t.Errorf("without follow: got %+v, want the 301 with location /final", hops)
	}
}
