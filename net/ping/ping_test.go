package ping

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/netnstest"
	"github.com/sitediag/sitediag/internal/porttest"
	"github.com/sitediag/sitediag/internal/testenv"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/netx"
)

// dialAllowing is the guard's dialer with only the given networks exempt.
func dialAllowing(prefixes ...netip.Prefix) netx.DialFunc {
	return guard.New(&dns.Resolver{}, guard.NewPolicy(prefixes)).DialLiteral
}

// childArg is what a parent test asks the child in the client namespace
// to ping.
type childArg struct {
	Target  netip.Addr
	Count   int
	TCPOnly bool
}

// TestPingAcrossNamespaces pings the target of the namespace topology
// from the client namespace, over IPv4 and IPv6, with and without loss
// injected at the last router.
func TestPingAcrossNamespaces(t *testing.T) {
	if netnstest.InChild(t, func(arg childArg) any {
		res, err := Ping(context.Background(), arg.Target, Options{
			Count: arg.Count, Interval: 20 * time.Millisecond, Wait: time.Second,
			TCPOnly: arg.TCPOnly, Dial: dialAllowing(netnstest.Networks...),
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}) {
		return
	}
	tp := netnstest.New(t)
	for _, target := range []netip.Addr{netnstest.Target4, netnstest.Target6} {
		t.Run(target.String(), func(t *testing.T) {
			var res Result
			tp.Run(t, "^TestPingAcrossNamespaces$", childArg{Target: target, Count: 4}, &res)
			if res.Method != MethodICMP || res.Requests != 4 || res.Loss != 0 || len(res.Replies) != 4 || res.IP != target.String() {
				t.Fatalf("got method %s, %d requests, %v%% loss, %d replies, ip %s; want icmp, 4, 0%%, 4, %s",
					res.Method, res.Requests, res.Loss, len(res.Replies), res.IP, target)
			}
			// The target is two routers away: its TTL of 64 arrives as 62.
			for _, r := range res.Replies {
				if r.TTL != 62 || r.RTT <= 0 {
					t.Errorf("reply %+v: want TTL 62 and a positive RTT", r)
				}
			}
			if !(res.Min <= res.Avg && res.Avg <= res.Max) || res.Latency != res.Avg || res.Min <= 0 {
				t.Errorf("inconsistent statistics: %+v", res)
			}
		})
	}
	t.Run("loss", func(t *testing.T) {
		tp.DropEchoRequests(t, 4)
		for _, target := range []netip.Addr{netnstest.Target4, netnstest.Target6} {
			var res Result
			tp.Run(t, "^TestPingAcrossNamespaces$", childArg{Target: target, Count: 16}, &res)
			// Every fourth request is dropped: 25 %, give or take one.
			if res.Requests != 16 || res.Loss < 18.75 || res.Loss > 31.25 {
				t.Fatalf("%s: %d requests, %v%% loss; want 16 and about 25%%", target, res.Requests, res.Loss)
			}
			if got := len(res.Replies); float64(16-got)/16*100 != res.Loss {
				t.Errorf("%s: %d replies do not make %v%% loss", target, got, res.Loss)
			}
		}
	})
}

// TestPingRefusedByPolicy runs as any user: the policy is asked before a
// socket is opened, for ICMP and for the TCP fallback alike.
func TestPingRefusedByPolicy(t *testing.T) {
	policy := guard.NewPolicy(nil)
	for _, tcpOnly := range []bool{false, true} {
		dial := func(context.Context, string, string) (net.Conn, error) {
			t.Fatal("dialled a refused address")
			return nil, nil
		}
		_, err := Ping(context.Background(), netip.MustParseAddr("127.0.0.1"), Options{Count: 1, Allow: policy.Allowed, Dial: dial, TCPOnly: tcpOnly})
		if !errors.Is(err, netx.ErrNotAllowed) {
			t.Fatalf("TCPOnly %v: err = %v, want netx.ErrNotAllowed", tcpOnly, err)
		}
	}
}

func TestPingLoopbackICMP(t *testing.T) {
	testenv.NeedRoot(t)
	res, err := Ping(context.Background(), netip.MustParseAddr("127.0.0.1"), Options{Count: 3, Interval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != MethodICMP || res.Requests != 3 || res.Loss != 0 || len(res.Replies) != 3 || res.Port != 0 {
		t.Fatalf("got %+v, want 3 ICMP replies", res)
	}
}

func TestPingTCP(t *testing.T) {
	// The fallback's ports are fixed; point it at listeners instead by
	// wrapping the dialer: 443 is "closed", 80 goes to a live listener.
	live := porttest.Listen(t, porttest.Hangup).Port
	closed := porttest.Closed(t)
	guarded := dialAllowing(netip.MustParsePrefix("127.0.0.1/32"))
	var tried []uint16
	dial := func(ctx context.Context, network, address string) (net.Conn, error) {
		port := netip.MustParseAddrPort(address).Port()
		tried = append(tried, port)
		mapped := closed
		if port == 80 {
			mapped = live
		}
		return guarded(ctx, network, netip.AddrPortFrom(netip.MustParseAddrPort(address).Addr(), mapped).String())
	}
	res, err := Ping(context.Background(), netip.MustParseAddr("127.0.0.1"), Options{Count: 3, Interval: 10 * time.Millisecond, Dial: dial, TCPOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != MethodTCP || res.Port != 80 || res.Requests != 3 || res.Loss != 0 || len(res.Replies) != 3 {
		t.Fatalf("got %+v, want 3 TCP replies on port 80", res)
	}
	if want := []uint16{443, 80, 80, 80}; len(tried) != len(want) || tried[0] != 443 || tried[1] != 80 || tried[3] != 80 {
		t.Errorf("ports tried %v, want %v (443, then 80 and keep to it)", tried, want)
	}
	for _, r := range res.Replies {
		if r.TTL != 0 {
			t.Errorf("TCP reply has a TTL: %+v", r)
		}
	}
}

func TestPingTCPTotalLoss(t *testing.T) {
	closed := porttest.Closed(t)
	guarded := dialAllowing(netip.MustParsePrefix("127.0.0.1/32"))
	dial := func(ctx context.Context, network, address string) (net.Conn, error) {
		return guarded(ctx, network, netip.AddrPortFrom(netip.MustParseAddrPort(address).Addr(), closed).String())
	}
	res, err := Ping(context.Background(), netip.MustParseAddr("127.0.0.1"), Options{Count: 2, Interval: time.Millisecond, Dial: dial, TCPOnly: true})
	if err != nil {
		t.Fatalf("total loss must be a result: %v", err)
	}
	if res.Loss != 100 || res.Requests != 2 || len(res.Replies) != 0 || res.Avg != 0 || res.Replies == nil {
		t.Fatalf("got %+v, want 2 requests, 100%% loss, empty replies", res)
	}
}

func TestPingTCPNothingSent(t *testing.T) {
	deny := dialAllowing()
	_, err := Ping(context.Background(), netip.MustParseAddr("127.0.0.1"), Options{Count: 2, Interval: time.Millisecond, Dial: deny, TCPOnly: true})
	if !errors.Is(err, ErrNotSent) || !errors.Is(err, netx.ErrNotAllowed) {
		t.Fatalf("err = %v, want ErrNotSent wrapping the refusal", err)
	}
}

func TestPingNoMethod(t *testing.T) {
	_, err := Ping(context.Background(), netip.MustParseAddr("127.0.0.1"), Options{TCPOnly: true})
	if !errors.Is(err, ErrNoMethod) {
		t.Fatalf("err = %v, want ErrNoMethod", err)
	}
}

func TestICMPAccess(t *testing.T) {
	testenv.NeedRoot(t)
	if got := ICMPAccess(false); got != AccessRaw {
		t.Errorf("ICMPAccess(false) as root = %v, want raw", got)
	}
}

func TestSummarise(t *testing.T) {
	res := &Result{Requests: 4, Replies: []Reply{{RTT: 1}, {RTT: 2}, {RTT: 3}}}
	summarise(res)
	if res.Loss != 25 || res.Min != 1 || res.Max != 3 || res.Avg != 2 || res.Latency != 2 || res.StdDev != 0.816 {
		t.Fatalf("got %+v, want loss 25, 1/3/2, stdDev 0.816", res)
	}
}

// TestPingProhibitedRoute pings addresses behind a "prohibit" route,
// where every send fails with EACCES (pro-bing retries that error
// forever): Ping must return ErrNotSent at once, over IPv4 and IPv6.
func TestPingProhibitedRoute(t *testing.T) {
	if netnstest.InChild(t, func(arg childArg) any {
		done := make(chan error, 1)
		go func() {
			_, err := Ping(context.Background(), arg.Target, Options{Count: 2, Interval: 20 * time.Millisecond, Wait: time.Second})
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotSent) || !errors.Is(err, syscall.EACCES) {
				t.Fatalf("err = %v, want ErrNotSent wrapping EACCES", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Ping did not return within 10 s")
		}
		return true
	}) {
		return
	}
	tp := netnstest.New(t)
	prohibited := []netip.Addr{netip.MustParseAddr("203.0.113.99"), netip.MustParseAddr("2001:db8:3::99")}
	for _, a := range prohibited {
		tp.Exec(t, tp.Client, "ip", "route", "add", "prohibit", netip.PrefixFrom(a, a.BitLen()).String())
	}
	for _, target := range prohibited {
		t.Run(target.String(), func(t *testing.T) {
			var ok bool
			tp.Run(t, "^TestPingProhibitedRoute$", childArg{Target: target}, &ok)
		})
	}
}

// TestRunBounded: a run that ignores its context does not hold the
// caller past the context's end and the grace.
func TestRunBounded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	release := make(chan struct{})
	defer close(release)
	_, err := runBounded(ctx, func(context.Context) error { <-release; return nil })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	runErr, err := runBounded(context.Background(), func(context.Context) error { return ErrNotSent })
	if err != nil || !errors.Is(runErr, ErrNotSent) {
		t.Fatalf("got %v, %v; want run's error and no ctx error", runErr, err)
	}
}
