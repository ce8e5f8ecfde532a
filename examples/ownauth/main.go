// Command ownauth mounts the sitediag operations in an application's
// plain http.ServeMux behind the application's own authentication: no
// sitediag API key, no Prometheus, no request log of sitediag's. Here
// the application's users send a bearer token; any check of the
// application's (a session cookie, mTLS, an OAuth introspection) takes
// its place.
//
//	OWNAUTH_TOKEN=s3cret go run ./examples/ownauth
//	curl -H 'Authorization: Bearer s3cret' -H 'Content-Type: application/json' \
//	     -d '{"url":"https://example.com"}' http://127.0.0.1:8082/diag/up
//
// OWNAUTH_ADDR is the listen address (127.0.0.1:8082); the client's
// settings come from the SITEDIAG_* variables (sitediag.ConfigFromEnv).
package main

import (
	"cmp"
	"crypto/subtle"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/httpapi"
)

func main() {
	token := os.Getenv("OWNAUTH_TOKEN")
	if token == "" {
		log.Fatal("set OWNAUTH_TOKEN to the token the application's users send")
	}
	addr := cmp.Or(os.Getenv("OWNAUTH_ADDR"), "127.0.0.1:8082")
	cfg, err := sitediag.ConfigFromEnv()
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(run(addr, token, cfg))
}

// run serves until the listener fails; it returns so that the client's
// deferred Close runs before the process exits.
func run(addr, token string, cfg sitediag.Config) error {
	client, err := sitediag.New(cfg)
	if err != nil {
		return err
	}
	defer client.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: newMux(client, bearer(token)), ReadHeaderTimeout: 10 * time.Second}
	log.Printf("listening on %s; the operations are under /diag/", ln.Addr())
	return srv.Serve(ln)
}

// newMux is the application's mux: its own page at /, and sitediag's
// routes under /diag/, each operation behind authenticate. Artifacts go
// to the directory store the handler opens by itself.
func newMux(client *sitediag.Client, authenticate func(http.Handler) http.Handler) *http.ServeMux {
	api := httpapi.New(client, httpapi.Options{Authorize: authenticate})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("the application's own page\n"))
	})
	mux.Handle("/diag/", http.StripPrefix("/diag", api.Routes()))
	return mux
}

// bearer is the application's own authentication: a request passes
// with "Authorization: Bearer <token>", and is answered in the
// application's own words otherwise.
func bearer(token string) func(http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="app"`)
				http.Error(w, "sign in to the application first", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
