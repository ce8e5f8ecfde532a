package sitediag_test

import (
	"net/netip"
	"testing"

	"github.com/sitediag/sitediag"
)

// loopback exempts 127.0.0.1 alone from the SSRF policy, as an operator
// exempts an internal network: the tests' fixtures listen there, and
// every other loopback address (127.0.0.2) stays refused.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}

// newClient returns a client of cfg, closed when the test ends.
func newClient(t testing.TB, cfg sitediag.Config) *sitediag.Client {
	t.Helper()
	c, err := sitediag.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// loopbackClient returns a client that may reach the tests' fixtures on
// 127.0.0.1.
func loopbackClient(t testing.TB) *sitediag.Client {
	t.Helper()
	return newClient(t, sitediag.Config{AllowNetworks: loopback})
}
