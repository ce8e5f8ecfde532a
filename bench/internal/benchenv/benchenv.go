// Package benchenv sets up what the bench commands measure with: a
// sitediag client that may reach the loopback fixtures, and the
// Chromium the peers run in. Each exits the command when it cannot.
package benchenv

import (
	"log"
	"net/netip"
	"os"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/browser"
)

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

// Chromium is the browser sitediag's client uses: SITEDIAG_CHROME_PATH,
// else the one browser.Find finds.
func Chromium() string {
	chrome, err := browser.Find(os.Getenv("SITEDIAG_CHROME_PATH"))
	if err != nil {
		log.Fatal(err)
	}
	return chrome
}
