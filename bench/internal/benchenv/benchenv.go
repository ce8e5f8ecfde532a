// Package benchenv sets up what the bench commands measure with: their
// arguments, a sitediag client that may reach the loopback fixtures, a
// local DNS server for the fixtures' names, the Chromium the peers run
// in and the Node peers' answers. Each exits the command when it cannot.
package benchenv

import (
	"bufio"
	"encoding/json"
	"flag"
	"log"
	"net/netip"
	"os"
	"os/exec"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/internal/dnstest"
)

// Args parses the command line's flags and returns its n arguments;
// with any other number it exits, printing "usage: " and usage.
func Args(n int, usage string) []string {
	flag.Parse()
	if flag.NArg() != n {
		log.Fatal("usage: " + usage)
	}
	return flag.Args()
}

// Loopback is the network the bench fixtures listen on, the one the
// clients and proxies of the benches exempt from the SSRF policy.
func Loopback() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
}

// Client returns a client with cfg, its AllowNetworks set to Loopback.
// Close it.
func Client(cfg sitediag.Config) *sitediag.Client {
	cfg.AllowNetworks = Loopback()
	c, err := sitediag.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	return c
}

// DNS starts a DNS server on a loopback port (internal/dnstest) that
// answers with records, written as in a zone file
// ("site.test. 60 IN A 127.0.0.1"), and NXDOMAIN for names it has none
// of. Close it.
func DNS(records ...string) *dnstest.Server {
	s, err := dnstest.Listen()
	if err != nil {
		log.Fatal(err)
	}
	if err := s.AddText(records...); err != nil {
		s.Close()
		log.Fatal(err)
	}
	return s
}

// Chromium is the browser sitediag's client uses: SITEDIAG_CHROME_PATH,
// else the one browser.Find finds.
func Chromium() string {
	chrome, err := browser.Find(os.Getenv("SITEDIAG_CHROME_PATH"))
	if err != nil {
		log.Fatal(err)
	}
	return chrome
}

// NodeJSON runs node with args, env added to the environment and its
// stderr ours, and returns what it prints, one JSON value of type T a
// line.
func NodeJSON[T any](env []string, args ...string) []T {
	cmd := exec.Command("node", args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		log.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	var values []T
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			log.Fatalf("%s: %v", args[0], err)
		}
		values = append(values, v)
	}
	if err := sc.Err(); err != nil {
		log.Fatalf("%s: %v", args[0], err)
	}
	if err := cmd.Wait(); err != nil {
		log.Fatalf("%s: %v", args[0], err)
	}
	return values
}
