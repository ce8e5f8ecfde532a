package guard

import (
	"context"
	"errors"
	"maps"
	"net"
	"net/netip"
	"testing"

	"github.com/sitediag/sitediag/net/netx"
)

func TestClass(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1": ClassLoopback, "::1": ClassLoopback, "::ffff:127.0.0.1": ClassLoopback,
		"10.1.2.3": ClassPrivate, "192.168.1.1": ClassPrivate, "fd00::1": ClassPrivate,
		"169.254.1.1": ClassLinkLocal, "fe80::1": ClassLinkLocal,
		"169.254.169.254": ClassMetadata, "168.63.129.16": ClassMetadata,
		"224.0.0.1": ClassMulticast, "0.0.0.0": ClassUnspecified, "0.1.2.3": ClassUnspecified, "::": ClassUnspecified,
		"100.64.0.1": ClassShared, "192.0.2.1": ClassSpecialPurpose, "2001:db8::1": ClassSpecialPurpose,
	} {
		if got := Class(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Class(%s) = %q, want %q", addr, got, want)
		}
	}
}

type fixedResolver map[string][]netip.Addr

func (r fixedResolver) LookupAddrs(_ context.Context, host string) ([]netip.Addr, error) {
	if addr, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{addr}, nil
	}
	return r[host], nil
}

// Every refusal is counted once, by the class of the refused address:
// a name that resolves only to refused addresses, a dial to a literal
// one, a datagram to one.
func TestRefusalsAreCounted(t *testing.T) {
	g := New(fixedResolver{"inside.test": {netip.MustParseAddr("10.0.0.1")}}, NewPolicy(nil))
	ctx := context.Background()
	if _, err := g.Resolve(ctx, "inside.test"); !errors.Is(err, netx.ErrNotAllowed) {
		t.Fatalf("resolve: %v", err)
	}
	if _, err := g.DialContext(ctx, "tcp", "127.0.0.1:80"); !errors.Is(err, netx.ErrNotAllowed) {
		t.Fatalf("dial: %v", err)
	}
	pc, err := g.ListenPacket(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if _, err := pc.WriteTo([]byte("x"), &net.UDPAddr{IP: net.ParseIP("169.254.169.254"), Port: 53}); !errors.Is(err, netx.ErrNotAllowed) {
		t.Fatalf("datagram: %v", err)
	}
	want := map[string]uint64{ClassPrivate: 1, ClassLoopback: 1, ClassMetadata: 1}
	if got := g.Refusals(); !maps.Equal(got, want) {
		t.Errorf("Refusals() = %v, want %v", got, want)
	}
}
