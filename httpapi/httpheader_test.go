package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/sitediag/sitediag/internal/apitest"
)

func TestHTTPHeader(t *testing.T) {
	api := newAPI(t, apitest.Options{})
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["X-First"] = []string{"1"}
		w.Header()["Set-Cookie"] = []string{"a=1; Path=/", "b=2", "c=3; HttpOnly"}
		w.Write([]byte("hello"))
	})
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/page", http.StatusFound) })
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()

	type header struct{ name, value string }
	headersOf := func(t *testing.T, data any) []header {
		t.Helper()
		var out []header
		for _, item := range data.([]any) {
			m := item.(map[string]any)
			if len(m) != 2 {
				t.Errorf("header item %v should have name and value only", m)
			}
			out = append(out, header{m["name"].(string), m["value"].(string)})
		}
		return out
	}
	only := func(hs []header, name string) []header {
		var out []header
		for _, h := range hs {
			if h.name == name {
				out = append(out, h)
			}
		}
		return out
	}

	meta, data := api.Post(t, "/httpheader", map[string]any{"url": siteURL(srv, "/old"), "followRedirect": true}).WantSuccess(t)
	if meta["url"] != siteURL(srv, "/old") || meta["redirectedURL"] != siteURL(srv, "/page") || meta["followRedirect"] != true {
		t.Errorf("meta: got %v", meta)
	}
	hs := headersOf(t, data)
	want := []header{{"set-cookie", "a=1; Path=/"}, {"set-cookie", "b=2"}, {"set-cookie", "c=3; HttpOnly"}}
	if got := only(hs, "set-cookie"); !reflect.DeepEqual(got, want) {
		t.Errorf("set-cookie: got %v, want %v", got, want)
	}
	if got := only(hs, "x-first"); len(got) != 1 || got[0].value != "1" {
		t.Errorf("x-first: got %v", got)
	}

	// Not following (the default), the redirect's own headers.
	meta, data = api.Post(t, "/httpheader", map[string]any{"url": siteURL(srv, "/old")}).WantSuccess(t)
	if meta["redirectedURL"] != siteURL(srv, "/old") || meta["followRedirect"] != false {
		t.Errorf("meta: got %v", meta)
	}
	if got := only(headersOf(t, data), "location"); len(got) != 1 || got[0].value != "/page" {
		t.Errorf("location: got %v, want /page", got)
	}
}
