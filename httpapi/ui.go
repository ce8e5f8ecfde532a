package httpapi

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed ui
var uiFiles embed.FS

// UIContentSecurityPolicy is the report page's Content-Security-Policy:
// everything from its own origin only (images also as data: and blob:
// URLs), and no framing.
const UIContentSecurityPolicy = "default-src 'self'; img-src 'self' data: blob:; frame-ancestors 'none'"

// UI returns the report page: static HTML, CSS and JavaScript, with no
// build step and nothing fetched from elsewhere, that asks the API for
// every diagnosis of a site and shows each as it completes. The page
// calls the API one level above its own path, so mount it in a ui/
// folder beside the API:
//
//	mux.Handle("/diag/", http.StripPrefix("/diag", httpapi.New(client, opts)))
//	mux.Handle("/diag/ui/", http.StripPrefix("/diag/ui", httpapi.UI()))
//
// The page asks for an API key once and keeps it in the tab's session
// storage. It serves no diagnosis itself and needs no key to load. Each
// response carries an X-Request-Id, as the API's do.
func UI() http.Handler {
	sub, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		panic(err) // the folder is embedded above; this cannot fail
	}
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", newTestID(r.URL.Path))
		w.Header().Set("Content-Security-Policy", UIContentSecurityPolicy)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		files.ServeHTTP(w, r)
	})
}
