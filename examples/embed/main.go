// Command embed mounts the sitediag API under /diag/ in an existing
// http.ServeMux, beside the application's own routes.
//
//	SITEDIAG_API_KEYS=secret go run ./examples/embed
//	curl -H 'x-api-key: secret' http://127.0.0.1:8081/diag/health
//
// SITEDIAG_API_KEYS is a comma list, as for the server; SITEDIAG_ADDR
// the listen address (127.0.0.1:8081).
package main

import (
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/blobstore"
	"github.com/sitediag/sitediag/httpapi"
)

func main() {
	var keys []string
	for k := range strings.SplitSeq(os.Getenv("SITEDIAG_API_KEYS"), ",") {
		if k = strings.TrimSpace(k); k != "" {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		log.Fatal("set SITEDIAG_API_KEYS to the keys callers will send (a comma list)")
	}
	addr := os.Getenv("SITEDIAG_ADDR")
	if addr == "" {
		addr = "127.0.0.1:8081"
	}
	log.Fatal(run(addr, keys))
}

// run serves until the listener fails; it returns so that the deferred
// Close calls (the browser included) run before the process exits.
func run(addr string, keys []string) error {
	client, err := sitediag.New(sitediag.Config{})
	if err != nil {
		return err
	}
	defer client.Close()
	store, err := blobstore.OpenDir(filepath.Join(os.TempDir(), "sitediag-embed"), blobstore.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}

	mux := http.NewServeMux()
	// The application's own home page. "GET /{$}" matches "/" alone; a
	// bare "GET /" would claim every GET and conflict with "/diag/".
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("the application's own page\n"))
	})
	mux.Handle("/diag/", http.StripPrefix("/diag", httpapi.New(client, httpapi.Options{
		APIKeys:   keys,
		Artifacts: store, // artifact links keep the /diag prefix without PublicURL
	})))

	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("listening on %s; the API is under /diag/", ln.Addr())
	return srv.Serve(ln)
}
