package guard

import (
	"maps"
	"net/netip"
	"sync"
)

// Classes of refused addresses, as Refusals counts them.
const (
	ClassLoopback       = "loopback"
	ClassPrivate        = "private"
	ClassLinkLocal      = "link-local"
	ClassMetadata       = "metadata"
	ClassMulticast      = "multicast"
	ClassUnspecified    = "unspecified"
	ClassShared         = "shared"
	ClassSpecialPurpose = "special-purpose"
)

// metadataAddrs are the cloud metadata and wire-server addresses.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"),
	netip.MustParseAddr("168.63.129.16"),
	netip.MustParseAddr("fd00:ec2::254"),
}

var sharedSpace = netip.MustParsePrefix("100.64.0.0/10")

// Class names the kind of special-purpose address addr is, for counting
// refusals: loopback, private, link-local, metadata, multicast,
// unspecified, shared (CGNAT) or, for the rest of the deny table,
// special-purpose.
func Class(addr netip.Addr) string {
	addr = addr.WithZone("").Unmap()
	for _, m := range metadataAddrs {
		if addr == m {
			return ClassMetadata
		}
	}
	switch {
	case addr.IsLoopback():
		return ClassLoopback
	case addr.IsPrivate():
		return ClassPrivate
	case addr.IsLinkLocalUnicast():
		return ClassLinkLocal
	case addr.IsMulticast():
		return ClassMulticast
	case addr.IsUnspecified(), addr.Is4() && addr.As4()[0] == 0:
		return ClassUnspecified
	case sharedSpace.Contains(addr):
		return ClassShared
	}
	return ClassSpecialPurpose
}

// refusals counts refused addresses by class.
type refusals struct {
	mu sync.Mutex
	n  map[string]uint64
}

func (r *refusals) add(addr netip.Addr) {
	class := Class(addr)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n[class]++
}

func (r *refusals) snapshot() map[string]uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.n)
}

// Refusals returns how many times the policy refused an address since
// the guard was built, by Class: a name that resolved only to refused
// addresses, a connection or a packet to one. A map the caller owns.
func (g *Guard) Refusals() map[string]uint64 { return g.refused.snapshot() }

// allowed reports whether the policy allows addr, counting a refusal.
func (g *Guard) allowed(addr netip.Addr) bool {
	if g.policy.Allowed(addr) {
		return true
	}
	g.refused.add(addr)
	return false
}
