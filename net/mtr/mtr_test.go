package mtr

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/netnstest"
	"github.com/sitediag/sitediag/internal/testenv"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/netx"
)

// names are the PTR names the child's Name function knows.
var names = map[netip.Addr]string{
	netnstest.Router14: "r1.site.test",
	netnstest.Router16: "r1.site.test",
	netnstest.Target4:  "target.site.test",
	netnstest.Target6:  "target.site.test",
}

type childArg struct {
	Target netip.Addr
	Count  int
}

func TestTraceAcrossNamespaces(t *testing.T) {
	if netnstest.InChild(t, func(arg childArg) any {
		hops, err := Trace(context.Background(), arg.Target, Options{
			Count: arg.Count, Interval: 50 * time.Millisecond, Timeout: time.Second,
			Name: func(_ context.Context, a netip.Addr) string { return names[a] },
			ASN: func(_ context.Context, a netip.Addr) string {
				if a == arg.Target {
					return "AS64500"
				}
				return ""
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		return hops
	}) {
		return
	}
	tp := netnstest.New(t)
	type want struct {
		ip, host string
	}
	paths := map[netip.Addr][]want{
		netnstest.Target4: {{"192.0.2.1", "r1.site.test"}, {"198.51.100.2", "198.51.100.2"}, {"203.0.113.2", "target.site.test"}},
		netnstest.Target6: {{"2001:db8:1::1", "r1.site.test"}, {"2001:db8:2::2", "2001:db8:2::2"}, {"2001:db8:3::2", "target.site.test"}},
	}
	trace := func(t *testing.T, target netip.Addr, count int) []Hop {
		t.Helper()
		var hops []Hop
		tp.Run(t, "^TestTraceAcrossNamespaces$", childArg{Target: target, Count: count}, &hops)
		return hops
	}
	for _, target := range []netip.Addr{netnstest.Target4, netnstest.Target6} {
		t.Run(target.String(), func(t *testing.T) {
			hops := trace(t, target, 3)
			if len(hops) != 3 {
				t.Fatalf("got %d hops %+v, want the two routers and the target", len(hops), hops)
			}
			for i, h := range hops {
				w := paths[target][i]
				wantASN := UnknownASN
				if i == 2 {
					wantASN = "AS64500"
				}
				if h.Hop != i+1 || h.IP != w.ip || h.Host != w.host || h.ASN != wantASN || h.Sent != 3 || h.Loss != 0 {
					t.Errorf("hop %d = %+v, want ip %s host %s asn %s, 3 sent, no loss", i+1, h, w.ip, w.host, wantASN)
				}
				if !(h.Best > 0 && h.Best <= h.Avg && h.Avg <= h.Worst) || h.Last < h.Best || h.Last > h.Worst {
					t.Errorf("hop %d: inconsistent times %+v", i+1, h)
				}
			}
		})
	}
	t.Run("silent router", func(t *testing.T) {
		tp.Nft(t, tp.Router1, `table inet silent {
	chain out {
		type filter hook output priority 0; policy accept;
		icmp type time-exceeded drop
		icmpv6 type time-exceeded drop
	}
}`)
		defer tp.Exec(t, tp.Router1, "nft", "delete", "table", "inet", "silent")
		hops := trace(t, netnstest.Target4, 2)
		if len(hops) != 3 {
			t.Fatalf("got %d hops %+v, want 3", len(hops), hops)
		}
		if h := hops[0]; h.Host != UnknownHost || h.IP != "" || h.Loss != 100 || h.Sent != 2 || h.ASN != UnknownASN || h.Avg != 0 {
			t.Errorf("silent hop = %+v, want host ???, no ip, 100%% loss of 2", h)
		}
		if hops[1].IP != "198.51.100.2" || hops[2].IP != "203.0.113.2" || hops[2].Loss != 0 {
			t.Errorf("hops after the silent one: %+v", hops[1:])
		}
	})
	t.Run("unreachable target", func(t *testing.T) {
		tp.Nft(t, tp.Router2, `table inet unreach {
	chain drops {
		type filter hook forward priority 0; policy accept;
		ip daddr 203.0.113.2 drop
	}
}`)
		defer tp.Exec(t, tp.Router2, "nft", "delete", "table", "inet", "unreach")
		hops := trace(t, netnstest.Target4, 1)
		// The routers answer; the path ends with one silent hop.
		if len(hops) != 3 || hops[0].IP != "192.0.2.1" || hops[1].IP != "198.51.100.2" || hops[2].Host != UnknownHost || hops[2].Loss != 100 {
			t.Fatalf("got %+v, want the two routers then one ??? hop", hops)
		}
	})
	t.Run("loss", func(t *testing.T) {
		tp.DropEchoRequests(t, 4)
		hops := trace(t, netnstest.Target4, 8)
		if len(hops) != 3 {
			t.Fatalf("got %d hops %+v, want 3", len(hops), hops)
		}
		if hops[0].Loss != 0 || hops[1].Loss != 0 {
			t.Errorf("the routers lost probes: %+v", hops[:2])
		}
		// A quarter of what crosses router2 is dropped; the first probe
		// of round one (TTL 3) is among them.
		if l := hops[2].Loss; l <= 0 || l >= 100 || hops[2].Sent != 8 {
			t.Errorf("target hop %+v, want 8 sent and a partial loss", hops[2])
		}
	})
}

func TestTraceLoopback(t *testing.T) {
	testenv.NeedRoot(t)
	hops, err := Trace(context.Background(), netip.MustParseAddr("127.0.0.1"), Options{Count: 2, Interval: 10 * time.Millisecond, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(hops) != 1 || hops[0].IP != "127.0.0.1" || hops[0].Host != "127.0.0.1" || hops[0].Loss != 0 || hops[0].Sent != 2 {
		t.Fatalf("got %+v, want one hop, 127.0.0.1, no loss", hops)
	}
}

// TestTraceRefusedByPolicy runs as any user: the policy is asked before
// a raw socket is opened, so nothing can be sent to a refused address.
func TestTraceRefusedByPolicy(t *testing.T) {
	policy := guard.NewPolicy(nil)
	_, err := Trace(context.Background(), netip.MustParseAddr("127.0.0.1"), Options{Count: 1, Allow: policy.Allowed})
	if !errors.Is(err, netx.ErrNotAllowed) {
		t.Fatalf("err = %v, want netx.ErrNotAllowed", err)
	}
}

func TestTraceCancelled(t *testing.T) {
	testenv.NeedRoot(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Trace(ctx, netip.MustParseAddr("127.0.0.1"), Options{Count: 3}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestQuotedRejectsForeignPackets(t *testing.T) {
	tr := &tracer{dst: netip.MustParseAddr("203.0.113.2"), id: 0x1234}
	ours := []byte{
		0x45, 0, 0, 28, 0, 0, 0, 0, 1, 1, 0, 0, // IPv4 header, TTL 1, protocol ICMP
		192, 0, 2, 2, 203, 0, 113, 2, // source, destination
		8, 0, 0, 0, 0x12, 0x34, 0x00, 0x07, // echo request, id 0x1234, seq 7
	}
	if seq, ok := tr.quoted(ours); !ok || seq != 7 {
		t.Fatalf("quoted(ours) = %d, %v; want 7, true", seq, ok)
	}
	mutate := func(i int, v byte) []byte {
		b := append([]byte(nil), ours...)
		b[i] = v
		return b
	}
	for name, b := range map[string][]byte{
		"other id":          mutate(24, 0x99),
		"other destination": mutate(19, 3),
		"not ICMP":          mutate(9, 17),
		"not an echo":       mutate(20, 13),
		"truncated":         ours[:24],
		"empty":             nil,
	} {
		if _, ok := tr.quoted(b); ok {
			t.Errorf("%s: matched", name)
		}
	}
}

// TestMatchOddPackets feeds the receive path what anyone on the Internet
// can send to the raw socket: nothing may panic, nothing may match.
func TestMatchOddPackets(t *testing.T) {
	tr := &tracer{dst: netip.MustParseAddr("203.0.113.2"), id: 0x1234}
	from := netip.MustParseAddr("198.51.100.9")
	for name, b := range map[string][]byte{
		// ICMP type 0x4f looks like an IPv4 header with a 60-byte IHL.
		"type 0x4f, 20 bytes": append([]byte{0x4f}, make([]byte, 19)...),
		"type 0x41, 20 bytes": append([]byte{0x41}, make([]byte, 19)...),
		"empty":               nil,
		"one byte":            {0x0b},
	} {
		if _, ok := tr.match(b, from); ok {
			t.Errorf("%s: matched", name)
		}
	}
}

func TestOriginQuery(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"192.0.2.1", "1.2.0.192.origin.test."},
		{"2001:db8::1", "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.origin6.test."},
		{"::ffff:192.0.2.1", "1.2.0.192.origin.test."},
	}
	for _, tt := range tests {
		if got := OriginQuery(netip.MustParseAddr(tt.addr), "origin.test", "origin6.test."); got != tt.want {
			t.Errorf("OriginQuery(%s) = %q, want %q", tt.addr, got, tt.want)
		}
	}
	if got := OriginQuery(netip.MustParseAddr("2001:db8::1"), "origin.test", ""); got != "" {
		t.Errorf("no IPv6 zone: got %q, want empty", got)
	}
}

func TestParseOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"13335 | 1.1.1.0/24 | AU | apnic | 2011-08-11": "AS13335",
		"64500 64501 | 192.0.2.0/24 | ZZ | test | x":   "AS64500",
		"AS64502|x": "AS64502",
	} {
		if got, err := ParseOrigin(in); err != nil || got != want {
			t.Errorf("ParseOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", " | 1.1.1.0/24", "NA | x", "0 | x"} {
		if got, err := ParseOrigin(in); err == nil {
			t.Errorf("ParseOrigin(%q) = %q, want an error", in, got)
		}
	}
}

func TestMeanStdDev(t *testing.T) {
	if m, sd := meanStdDev([]float64{1, 2, 3}); m != 2 || sd != 1 {
		t.Errorf("meanStdDev(1,2,3) = %v, %v; want 2, 1", m, sd)
	}
	if m, sd := meanStdDev([]float64{5}); m != 5 || sd != 0 {
		t.Errorf("meanStdDev(5) = %v, %v; want 5, 0", m, sd)
	}
}
