// Package guard is sitediag's one SSRF policy: which addresses a diagnosis
// may reach, a resolver-backed dialer that enforces it on the literal
// address of every connection, and the HTTP transport every tool builds on.
//
// The policy refuses private, loopback, link-local, shared, benchmarking,
// documentation, multicast, reserved and cloud-metadata addresses; for IPv6
// only global unicast (2000::/3) is allowed, minus the Teredo, ORCHIDv2,
// documentation and 6to4 blocks. Operators can exempt networks with an
// allow list; tests allow their loopback fixtures that way, never by
// switching the policy off.
//
// sitediag.Client builds one Guard from its Config and hands it to every
// mechanism. A program that calls the mechanism packages itself (tls,
// net/portscan, net/httpprobe, browser, …) builds its own with New and
// passes its methods where they take a netx type: DialContext or
// DialLiteral as a netx.DialFunc, Control for a netx.ControlFunc,
// NewHTTPClient for a netx.Doer, Allowed for a netx.AllowFunc, so those
// calls obey the same policy.
package guard

import (
	"net/netip"
)

// deniedV4 lists the IPv4 special-purpose ranges (IANA registry) and the
// cloud metadata address that no diagnosis may reach.
var deniedV4 = mustPrefixes(
	"0.0.0.0/8",        // "this network"
	"10.0.0.0/8",       // private
	"100.64.0.0/10",    // shared address space (CGNAT)
	"127.0.0.0/8",      // loopback
	"169.254.0.0/16",   // link-local, cloud metadata
	"172.16.0.0/12",    // private
	"192.0.0.0/24",     // IETF protocol assignments
	"192.0.2.0/24",     // TEST-NET-1
	"192.88.99.0/24",   // 6to4 relay anycast
	"192.168.0.0/16",   // private
	"198.18.0.0/15",    // benchmarking
	"198.51.100.0/24",  // TEST-NET-2
	"203.0.113.0/24",   // TEST-NET-3
	"224.0.0.0/4",      // multicast
	"240.0.0.0/4",      // reserved, and 255.255.255.255
	"168.63.129.16/32", // Azure wire server
)

// globalV6 is the only IPv6 space allowed; deniedV6 are the blocks inside
// it that still lead somewhere special.
var (
	globalV6 = netip.MustParsePrefix("2000::/3")
	deniedV6 = mustPrefixes(
		"2001::/23",     // IETF protocol assignments, Teredo (2001::/32)
		"2001:db8::/32", // documentation
		"2002::/16",     // 6to4: embeds any IPv4 address
	)
)

func mustPrefixes(ss ...string) []netip.Prefix {
	ps := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		ps[i] = netip.MustParsePrefix(s)
	}
	return ps
}

// Policy decides whether an address may be reached. The zero Policy
// applies the deny table with no exceptions.
type Policy struct {
	allow []netip.Prefix
}

// NewPolicy returns the policy with the operator's exempt networks.
func NewPolicy(allow []netip.Prefix) Policy {
	ps := make([]netip.Prefix, 0, len(allow))
	for _, p := range allow {
		ps = append(ps, p.Masked())
	}
	return Policy{allow: ps}
}

// Allowed reports whether addr may be reached. The address is un-zoned
// and un-mapped first, so ::ffff:127.0.0.1 and fe80::1%eth0 are judged
// as what they really are.
func (p Policy) Allowed(addr netip.Addr) bool {
	if !addr.IsValid() {
		return false
	}
	addr = addr.WithZone("").Unmap()
	for _, prefix := range p.allow {
		if prefix.Contains(addr) {
			return true
		}
	}
	if addr.Is4() {
		return !containedIn(deniedV4, addr)
	}
	return globalV6.Contains(addr) && !containedIn(deniedV6, addr)
}

func containedIn(prefixes []netip.Prefix, addr netip.Addr) bool {
	for _, p := range prefixes {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}
