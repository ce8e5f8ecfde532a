// Command library shows sitediag used as a Go library: build a client,
// run diagnoses, branch on the error codes.
//
//	go run ./examples/library https://example.com
//
// The client's settings come from the SITEDIAG_* variables
// (sitediag.ConfigFromEnv); unset, the system's DNS servers and the
// full SSRF policy. Offline, against a site of your own on this host:
//
//	SITEDIAG_ALLOW_NETWORKS=127.0.0.1/32 SITEDIAG_DNS_SERVERS=127.0.0.1:5353 \
//	    go run ./examples/library http://site.test:8080/
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/sitediag/sitediag"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: library URL")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		report(err)
		os.Exit(1)
	}
}

// run diagnoses target; it returns so that the client's deferred Close
// runs before the process exits.
func run(target string) error {
	cfg, err := sitediag.ConfigFromEnv()
	if err != nil {
		return err
	}
	client, err := sitediag.New(cfg)
	if err != nil {
		return err
	}
	defer client.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	up, err := client.Up(ctx, target, sitediag.UpOptions{})
	if err != nil {
		return err
	}
	if !up.Reachable {
		fmt.Printf("%s is down: %s\n", up.Host, up.ReasonPhrase)
		return nil
	}
	fmt.Printf("%s is up: %d %s (final URL %s)\n", up.Host, up.StatusCode, up.ReasonPhrase, up.RedirectedURL)

	chain, err := client.RedirectCheck(ctx, target, sitediag.RedirectCheckOptions{})
	if err != nil {
		return err
	}
	for i, hop := range chain.Hops {
		fmt.Printf("  %d. %d %s\n", i+1, hop.Status, hop.URL)
	}
	return nil
}

// report tells the documented failures apart.
func report(err error) {
	var e *sitediag.Error
	switch {
	case errors.Is(err, sitediag.ErrTargetNotAllowed):
		fmt.Println("refused: the target is on a network this client may not reach")
	case errors.As(err, &e):
		fmt.Printf("%s: %s\n", e.Code, e.Details)
	default:
		fmt.Println(err)
	}
}
