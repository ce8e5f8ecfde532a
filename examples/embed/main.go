// Command embed mounts the sitediag API under /diag/ in an existing
// http.ServeMux, beside the application's own routes.
//
//	SITEDIAG_API_KEYS=secret go run ./examples/embed
//	curl -H 'x-api-key: secret' http://127.0.0.1:8081/diag/health
package main

import (
	"log"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/httpapi"
)

func main() {
	key := os.Getenv("SITEDIAG_API_KEYS")
	if key == "" {
		log.Fatal("set SITEDIAG_API_KEYS to the key callers will send")
	}
	log.Fatal(run(key))
}

// run serves until the listener fails; it returns so that the deferred
// Close calls (the browser included) run before the process exits.
func run(key string) error {
	client, err := sitediag.New(sitediag.Config{})
	if err != nil {
		return err
	}
	defer client.Close()
	store, err := httpapi.NewLocalStore(filepath.Join(os.TempDir(), "sitediag-embed"), 0)
	if err != nil {
		return err
	}
	defer store.Close()

	mux := http.NewServeMux()
	mux.HandleFunc("GET /", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("the application's own page\n"))
	})
	mux.Handle("/diag/", http.StripPrefix("/diag", httpapi.New(client, httpapi.Options{
		APIKeys:   []string{key},
		PublicURL: "http://127.0.0.1:8081/diag", // artifact links include the prefix
		Artifacts: store,
	})))

	srv := &http.Server{Addr: "127.0.0.1:8081", Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("listening on %s; the API is under /diag/", srv.Addr)
	return srv.ListenAndServe()
}
