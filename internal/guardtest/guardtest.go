// Package guardtest builds a guard for tests: it resolves with a local
// DNS server (dnstest) where site.test is 127.0.0.1 and private.test is
// 10.0.0.1, and its policy exempts 127.0.0.1 only, so loopback fixtures
// are reachable by name and everything else the policy refuses stays
// refused.
package guardtest

import (
	"net/netip"
	"testing"

	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/dnstest"
	"github.com/sitediag/sitediag/net/guard"
)

// New returns the guard, serving records (zone-file form, "a.test. 60
// IN A 127.0.0.1") besides site.test and private.test. The DNS server
// stops when the test ends.
func New(t testing.TB, records ...string) *guard.Guard {
	t.Helper()
	return guard.New(Resolver(t, records...), guard.NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}))
}

// Resolver returns the guard's resolver alone, for a guard of another
// policy: a local DNS server with records besides site.test and
// private.test, which stops when the test ends.
func Resolver(t testing.TB, records ...string) *dns.Resolver {
	t.Helper()
	srv := dnstest.Start(t)
	srv.Add(t, append([]string{"site.test. 60 IN A 127.0.0.1", "private.test. 60 IN A 10.0.0.1"}, records...)...)
	return &dns.Resolver{Servers: []string{srv.Addr}}
}
