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
	"os"

	"github.com/sitediag/sitediag/browser"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: browserflags <proxy URL> <profile dir>")
		os.Exit(2)
	}
	for _, f := range browser.Flags(os.Args[1], os.Args[2]) {
		fmt.Println(f)
	}
}
