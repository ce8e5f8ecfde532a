// Command browserflags prints, one a line, the command-line flags a
// remote browser must be started with for sitediag to use it
// (browser.Flags): its only way out is the proxy given, and its
// DevTools endpoint is on 127.0.0.1. bench/scale.sh starts its remote
// browsers with them.
//
//	browserflags <proxy URL> <profile dir>
package main

import (
	"fmt"
	"log"

	"github.com/sitediag/sitediag/bench/internal/benchenv"
	"github.com/sitediag/sitediag/browser"
)

func main() {
	log.SetFlags(0)
	args := benchenv.Args(2, "browserflags <proxy URL> <profile dir>")
	for _, f := range browser.Flags(args[0], args[1]) {
		fmt.Println(f)
	}
}
