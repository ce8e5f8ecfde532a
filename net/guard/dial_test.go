package guard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"sync"
	"testing"

	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/porttest"
	"github.com/sitediag/sitediag/internal/target"
	"github.com/sitediag/sitediag/net/netx"
)

// fakeResolver answers every name with the same addresses and records
// what it was asked.
type fakeResolver struct {
	mu    sync.Mutex
	asked []string
	addrs []netip.Addr
}

func (r *fakeResolver) LookupAddrs(_ context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, host)
	return r.addrs, nil
}

var errNoDial = errors.New("test: dial recorded, not performed")

// recordingGuard returns a guard whose dials are recorded, never made.
func recordingGuard(res Resolver, policy Policy) (*Guard, *[]string) {
	g := New(res, policy)
	var dialled []string
	g.dial = func(_ context.Context, _, address string) (net.Conn, error) {
		dialled = append(dialled, address)
		return nil, errNoDial
	}
	return g, &dialled
}

func TestDialSkipsRefusedAddresses(t *testing.T) {
	res := &fakeResolver{addrs: []netip.Addr{
		netip.MustParseAddr("127.0.0.1"),
		netip.MustParseAddr("::ffff:169.254.169.254"),
		netip.MustParseAddr("93.184.216.34"),
		netip.MustParseAddr("10.0.0.1"),
	}}
	g, dialled := recordingGuard(res, Policy{})
	_, err := g.DialContext(context.Background(), "tcp", "mixed.example:443")
	if !errors.Is(err, errNoDial) {
		t.Fatalf("err = %v, want the recorded dial's error", err)
	}
	if len(*dialled) != 1 || (*dialled)[0] != "93.184.216.34:443" {
		t.Fatalf("dialled %v, want only the public address", *dialled)
	}
}

func TestDialAllRefused(t *testing.T) {
	res := &fakeResolver{addrs: []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("fd00::1")}}
	g, dialled := recordingGuard(res, Policy{})
	_, err := g.DialContext(context.Background(), "tcp", "internal.example:80")
	if !errors.Is(err, netx.ErrNotAllowed) {
		t.Fatalf("err = %v, want netx.ErrNotAllowed", err)
	}
	if len(*dialled) != 0 {
		t.Fatalf("dialled %v, want nothing", *dialled)
	}
	if got := err.Error(); got != netx.ErrNotAllowed.Error() {
		t.Errorf("refusal text %q leaks detail; want %q", got, netx.ErrNotAllowed.Error())
	}
}

// TestDialNoAddress: a resolver's empty answer is a name that does not
// resolve, not a refusal.
func TestDialNoAddress(t *testing.T) {
	g, dialled := recordingGuard(&fakeResolver{}, Policy{})
	_, err := g.DialContext(context.Background(), "tcp", "empty.example:80")
	var resolveErr *ResolveError
	if !errors.As(err, &resolveErr) || errors.Is(err, netx.ErrNotAllowed) {
		t.Fatalf("err = %v, want a *ResolveError", err)
	}
	if len(*dialled) != 0 {
		t.Fatalf("dialled %v, want nothing", *dialled)
	}
}

func TestControlChecksTheLiteralAddress(t *testing.T) {
	g := New(&fakeResolver{}, NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}))
	for addr, want := range map[string]bool{
		"127.0.0.1:80":         true,
		"127.0.0.2:80":         false,
		"[::1]:80":             false,
		"[::ffff:127.0.0.1]:1": true,
		"93.184.216.34:443":    true,
		"not-an-address":       false,
	} {
		if got := g.Control("tcp", addr, nil) == nil; got != want {
			t.Errorf("control(%s) allowed = %v, want %v", addr, got, want)
		}
	}
}

// TestDialRealRefusal dials a real listener the policy does not allow:
// the connect-time check must stop it before the SYN.
func TestDialRealRefusal(t *testing.T) {
	ln := porttest.Listen(t, porttest.Hangup)
	g := New(&fakeResolver{}, Policy{})
	port := ln.Port
	// DialAddrs skips refused addresses; call the dialer itself to prove
	// Control is the last word even when the pre-check is bypassed.
	d := &net.Dialer{Control: g.Control}
	if _, err := d.Dial("tcp", netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port).String()); !errors.Is(err, netx.ErrNotAllowed) {
		t.Fatalf("dial err = %v, want netx.ErrNotAllowed", err)
	}
	if _, err := g.DialAddrs(context.Background(), "tcp", []netip.Addr{netip.MustParseAddr("127.0.0.1")}, port); !errors.Is(err, netx.ErrNotAllowed) {
		t.Fatalf("DialAddrs err = %v, want netx.ErrNotAllowed", err)
	}
	if ln.Accepted() != 0 {
		t.Fatal("the refused listener accepted a connection")
	}
}

// FuzzParseClassify parses a target as callers send it and dials it
// through the guard. Invariants: no panic; a refused address is never
// dialled; what is dialled is the parsed host (its literal, or what the
// resolver said for exactly that name).
func FuzzParseClassify(f *testing.F) {
	for _, seed := range []string{
		"http://example.com/", "https://EXAMPLE.com.:443/x?y", "example.com", "example.com:8080",
		"http://127.0.0.1/", "http://2130706433/", "http://0x7f.1/", "http://127.1/", "http://0177.0.0.1/",
		"http://[::1]/", "http://[::ffff:169.254.169.254]/", "http://[fe80::1%25eth0]/", "[2606:4700::1]",
		"http://169.254.169.254/latest/meta-data/", "http://user:pass@example.com/", "ftp://example.com/",
		"http://bücher.example/", "http://xn--bcher-kva.example/", "http://a..b/", "http://" + string(rune(0)) + "/",
		"http://[64:ff9b::a9fe:a9fe]/", "http://[2002:a9fe:a9fe::1]/", "93.184.216.34", "http://%31%32%37.0.0.1/",
		"http://example.com:0/", "http://example.com:65536/", "HTTP://Example.COM", "1.2.3.4.5", "http://1.2.3.04/",
	} {
		f.Add(seed)
	}
	allow := NewPolicy([]netip.Prefix{netip.MustParsePrefix("198.51.100.7/32")})
	f.Fuzz(func(t *testing.T, raw string) {
		tgt, err := target.ParseHost(raw)
		if err != nil {
			return
		}
		res := &fakeResolver{addrs: []netip.Addr{
			netip.MustParseAddr("10.0.0.1"),
			netip.MustParseAddr("198.51.100.7"),
			netip.MustParseAddr("93.184.216.34"),
		}}
		g, dialled := recordingGuard(res, allow)
		port := tgt.Port
		if port == 0 {
			port = 80
		}
		_, err = g.DialContext(context.Background(), "tcp", net.JoinHostPort(tgt.Host, itoa(port)))
		for _, d := range *dialled {
			ap := netip.MustParseAddrPort(d)
			if !allow.Allowed(ap.Addr()) {
				t.Fatalf("%q: dialled refused address %s", raw, d)
			}
		}
		if tgt.IsIP() {
			want := tgt.Addr.Unmap()
			if !allow.Allowed(tgt.Addr) {
				if len(*dialled) != 0 || !errors.Is(err, netx.ErrNotAllowed) {
					t.Fatalf("%q: refused literal dialled %v (err %v)", raw, *dialled, err)
				}
				return
			}
			if len(*dialled) != 1 || netip.MustParseAddrPort((*dialled)[0]).Addr() != want {
				t.Fatalf("%q: dialled %v, want %s", raw, *dialled, want)
			}
			return
		}
		if len(res.asked) != 1 || res.asked[0] != tgt.Host {
			t.Fatalf("%q: resolver asked %v, want [%s]", raw, res.asked, tgt.Host)
		}
		if len(*dialled) != 2 {
			t.Fatalf("%q: dialled %v, want the two allowed answers", raw, *dialled)
		}
	})
}

func itoa(p uint16) string { return strconv.Itoa(int(p)) }

// TestProxyNoAddress: a proxy name the resolver answers with no address
// is a *netx.ProxyError whose text can be read.
func TestProxyNoAddress(t *testing.T) {
	g := New(&fakeResolver{}, Policy{})
	proxy := &url.URL{Scheme: "http", Host: "empty.example:3128"}
	_, err := g.Dialer(proxy)(context.Background(), "tcp", "93.184.216.34:80")
	var proxyErr *netx.ProxyError
	if !errors.As(err, &proxyErr) {
		t.Fatalf("err = %v, want a *netx.ProxyError", err)
	}
	_ = err.Error()
}

func TestDialLiteral(t *testing.T) {
	ln := porttest.Listen(t, porttest.Hangup)
	g := New(&dns.Resolver{}, NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}))
	conn, err := g.DialLiteral(context.Background(), "tcp", "127.0.0.1:"+strconv.Itoa(int(ln.Port)))
	if err != nil {
		t.Fatalf("allowed literal: %v", err)
	}
	conn.Close()
	if _, err := g.DialLiteral(context.Background(), "tcp", "127.0.0.2:80"); !errors.Is(err, netx.ErrNotAllowed) {
		t.Errorf("refused literal: got %v, want ErrNotAllowed", err)
	}
	if _, err := g.DialLiteral(context.Background(), "tcp", "localhost:80"); err == nil || errors.Is(err, netx.ErrNotAllowed) {
		t.Errorf("a name: got %v, want a refusal to resolve it", err)
	}
}
