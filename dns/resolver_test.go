package dns_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mdns "github.com/miekg/dns"

	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/dnstest"
)

// testTimeout is the per-exchange timeout of the test resolvers: short,
// so the tests of servers that never answer stay fast.
const testTimeout = 300 * time.Millisecond

// listenUDP opens a UDP socket on a random loopback port, closed when
// the test ends.
func listenUDP(t *testing.T) net.PacketConn {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	return pc
}

// silentServer returns the address of a UDP socket that never answers.
func silentServer(t *testing.T) string {
	t.Helper()
	return listenUDP(t).LocalAddr().String()
}

// closedPort returns a loopback UDP address nothing listens on, so
// queries to it are refused.
func closedPort(t *testing.T) string {
	t.Helper()
	pc := listenUDP(t)
	addr := pc.LocalAddr().String()
	pc.Close()
	return addr
}

// zoneResolver returns a resolver with the test timeout that asks a
// dnstest server serving records.
func zoneResolver(t *testing.T, records ...string) *dns.Resolver {
	t.Helper()
	s := dnstest.Start(t)
	s.Add(t, records...)
	return &dns.Resolver{Servers: []string{s.Addr}, Timeout: testTimeout}
}

// rcodeServer answers every query with rcode.
func rcodeServer(t *testing.T, rcode int) *dnstest.Server {
	t.Helper()
	s := dnstest.Start(t)
	s.Handle(func(w mdns.ResponseWriter, req *mdns.Msg) {
		resp := new(mdns.Msg)
		resp.SetRcode(req, rcode)
		w.WriteMsg(resp)
	})
	return s
}

func question(name string, qtype uint16) *mdns.Msg {
	msg := new(mdns.Msg)
	msg.SetQuestion(mdns.Fqdn(name), qtype)
	return msg
}

func TestExchangeCompletesTruncatedAnswerOverTCP(t *testing.T) {
	s := dnstest.Start(t)
	const n = 40
	for i := range n {
		s.Add(t, fmt.Sprintf(`big.test. 60 IN TXT "record %02d %s"`, i, strings.Repeat("x", 50)))
	}
	r := &dns.Resolver{Servers: []string{s.Addr}, Timeout: testTimeout}
	resp, err := r.Exchange(context.Background(), question("big.test", mdns.TypeTXT))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Truncated || len(resp.Answer) != n {
		t.Errorf("got %d records (truncated %v), want all %d", len(resp.Answer), resp.Truncated, n)
	}
	var networks []string
	for _, q := range s.Queries() {
		networks = append(networks, q.Network)
	}
	if got := strings.Join(networks, ","); got != "udp,tcp" {
		t.Errorf("transports used: got %s, want udp,tcp", got)
	}
}

func TestExchangeSmallAnswerStaysOnUDP(t *testing.T) {
	s := dnstest.Start(t)
	s.Add(t, "site.test. 60 IN A 192.0.2.1")
	r := &dns.Resolver{Servers: []string{s.Addr}, Timeout: testTimeout}
	if _, err := r.Exchange(context.Background(), question("site.test", mdns.TypeA)); err != nil {
		t.Fatal(err)
	}
	if q := s.Queries(); len(q) != 1 || q[0].Network != "udp" {
		t.Errorf("got queries %+v, want one over udp", q)
	}
}

func TestExchangeRetriesOnAnotherServer(t *testing.T) {
	tests := []struct {
		name  string
		first func(t *testing.T) string
	}{
		{"silent", silentServer},
		{"refused port", closedPort},
		{"SERVFAIL", func(t *testing.T) string { return rcodeServer(t, mdns.RcodeServerFailure).Addr }},
		{"REFUSED", func(t *testing.T) string { return rcodeServer(t, mdns.RcodeRefused).Addr }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			good := dnstest.Start(t)
			good.Add(t, "site.test. 60 IN A 192.0.2.1")
			r := &dns.Resolver{Servers: []string{tt.first(t), good.Addr}, Timeout: testTimeout}
			resp, err := r.Exchange(context.Background(), question("site.test", mdns.TypeA))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Rcode != mdns.RcodeSuccess || len(resp.Answer) != 1 {
				t.Errorf("got %s with %d records, want the second server's NOERROR with 1", mdns.RcodeToString[resp.Rcode], len(resp.Answer))
			}
		})
	}
}

func TestExchangeTriesEveryServer(t *testing.T) {
	good := dnstest.Start(t)
	good.Add(t, "site.test. 60 IN A 192.0.2.1")
	r := &dns.Resolver{Servers: []string{closedPort(t), silentServer(t), good.Addr}, Timeout: testTimeout}
	resp, err := r.Exchange(context.Background(), question("site.test", mdns.TypeA))
	if err != nil {
		t.Fatalf("got %v, want the third server's answer", err)
	}
	if len(resp.Answer) != 1 {
		t.Errorf("got %d records, want the third server's 1", len(resp.Answer))
	}
}

// TestExchangeSharesTheDeadline: with a deadline shorter than two
// timeouts, two silent servers first still leave time for the third.
func TestExchangeSharesTheDeadline(t *testing.T) {
	good := dnstest.Start(t)
	good.Add(t, "site.test. 60 IN A 192.0.2.1")
	r := &dns.Resolver{Servers: []string{silentServer(t), silentServer(t), good.Addr}, Timeout: time.Minute}
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	if _, err := r.Exchange(ctx, question("site.test", mdns.TypeA)); err != nil {
		t.Fatalf("got %v, want the third server's answer within the deadline", err)
	}
}

func TestExchangeKeepsErrorAnswerWhenNoOtherServerAnswers(t *testing.T) {
	servfail := rcodeServer(t, mdns.RcodeServerFailure)
	r := &dns.Resolver{Servers: []string{servfail.Addr, closedPort(t)}, Timeout: testTimeout}
	resp, err := r.Exchange(context.Background(), question("site.test", mdns.TypeA))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Rcode != mdns.RcodeServerFailure {
		t.Errorf("got %s, want SERVFAIL", mdns.RcodeToString[resp.Rcode])
	}
}

func TestExchangeTimesOut(t *testing.T) {
	r := &dns.Resolver{Servers: []string{silentServer(t), silentServer(t)}, Timeout: testTimeout}
	start := time.Now()
	_, err := r.Exchange(context.Background(), question("site.test", mdns.TypeA))
	if !errors.Is(err, dns.ErrNoAnswer) || !errors.Is(err, dns.ErrTimeout) {
		t.Fatalf("got %v, want ErrNoAnswer and ErrTimeout", err)
	}
	// Two attempts of testTimeout each; the bound is loose on purpose.
	if elapsed := time.Since(start); elapsed > 10*testTimeout {
		t.Errorf("took %v, want about %v", elapsed, 2*testTimeout)
	}
}

func TestExchangeRefusedIsNotTimeout(t *testing.T) {
	r := &dns.Resolver{Servers: []string{closedPort(t)}, Timeout: testTimeout}
	_, err := r.Exchange(context.Background(), question("site.test", mdns.TypeA))
	if !errors.Is(err, dns.ErrNoAnswer) || errors.Is(err, dns.ErrTimeout) {
		t.Fatalf("got %v, want ErrNoAnswer without ErrTimeout", err)
	}
}

func TestExchangeHonoursContext(t *testing.T) {
	t.Run("cancel", func(t *testing.T) {
		r := &dns.Resolver{Servers: []string{silentServer(t)}, Timeout: time.Minute}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		_, err := r.Exchange(ctx, question("site.test", mdns.TypeA))
		if !errors.Is(err, context.Canceled) || errors.Is(err, dns.ErrTimeout) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
		if elapsed := time.Since(start); elapsed > 10*time.Second {
			t.Errorf("took %v after cancel", elapsed)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		r := &dns.Resolver{Servers: []string{silentServer(t), silentServer(t)}, Timeout: time.Minute}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := r.Exchange(ctx, question("site.test", mdns.TypeA))
		if !errors.Is(err, dns.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v, want ErrTimeout and context.DeadlineExceeded", err)
		}
	})
}

func TestExchangeAdvertisesEDNS0(t *testing.T) {
	s := dnstest.Start(t)
	var size atomic.Uint32
	s.Handle(func(w mdns.ResponseWriter, req *mdns.Msg) {
		if opt := req.IsEdns0(); opt != nil {
			size.Store(uint32(opt.UDPSize()))
		}
		s.ServeRecords(w, req)
	})
	r := &dns.Resolver{Servers: []string{s.Addr}, Timeout: testTimeout}
	if _, err := r.Exchange(context.Background(), question("site.test", mdns.TypeA)); err != nil {
		t.Fatal(err)
	}
	if got := size.Load(); got != 1232 {
		t.Errorf("EDNS0 buffer: got %d, want 1232", got)
	}
}

func TestLookupAddrs(t *testing.T) {
	r := zoneResolver(t,
		"site.test. 60 IN AAAA 2001:db8::1",
		"site.test. 60 IN A 192.0.2.1",
		"alias.test. 60 IN CNAME site.test.",
		"test. 60 IN SOA ns.test. hostmaster.test. 1 7200 3600 1209600 300",
		"mail.test. 60 IN MX 10 site.test.",
	)
	want := []netip.Addr{netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::1")}
	for _, tt := range []struct {
		host string
		want []netip.Addr
	}{
		{"site.test", want},
		{"alias.test", want},
		{"SITE.test.", want},
		{"192.0.2.7", []netip.Addr{netip.MustParseAddr("192.0.2.7")}},
		{"2001:db8::7", []netip.Addr{netip.MustParseAddr("2001:db8::7")}},
	} {
		got, err := r.LookupAddrs(context.Background(), tt.host)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, %v; want %v (IPv4 first)", tt.host, got, err, tt.want)
		}
	}
	for _, host := range []string{"missing.test", "mail.test"} {
		_, err := r.LookupAddrs(context.Background(), host)
		var nf *dns.NotFoundError
		if !errors.As(err, &nf) || nf.Name != host {
			t.Errorf("%s: got %v, want a NotFoundError", host, err)
		}
	}
}

func TestLookupAddrsErrors(t *testing.T) {
	t.Run("SERVFAIL", func(t *testing.T) {
		r := &dns.Resolver{Servers: []string{rcodeServer(t, mdns.RcodeServerFailure).Addr}, Timeout: testTimeout}
		_, err := r.LookupAddrs(context.Background(), "site.test")
		var re *dns.RcodeError
		if !errors.As(err, &re) || re.Rcode != "SERVFAIL" || re.Name != "site.test" {
			t.Fatalf("got %v, want an RcodeError SERVFAIL for site.test", err)
		}
	})
	t.Run("no answer", func(t *testing.T) {
		r := &dns.Resolver{Servers: []string{silentServer(t)}, Timeout: testTimeout}
		_, err := r.LookupAddrs(context.Background(), "site.test")
		if !errors.Is(err, dns.ErrNoAnswer) || !errors.Is(err, dns.ErrTimeout) {
			t.Fatalf("got %v, want ErrNoAnswer and ErrTimeout", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		r := &dns.Resolver{Servers: []string{silentServer(t)}, Timeout: time.Minute}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err := r.LookupAddrs(ctx, "site.test")
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
	})
}

func TestLookupPTRAndTXT(t *testing.T) {
	r := zoneResolver(t,
		"1.0.0.127.in-addr.arpa. 60 IN PTR router-1.example.",
		"1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa. 60 IN PTR v6.example.",
		`_dmarc.site.test. 60 IN TXT "v=DMARC1; p=reject; " "rua=mailto:caf\195\169@site.test"`,
	)
	ctx := context.Background()
	for addr, want := range map[string][]string{
		"127.0.0.1":   {"router-1.example"},
		"2001:db8::1": {"v6.example"},
		"127.0.0.9":   nil,
	} {
		got, err := r.LookupPTR(ctx, netip.MustParseAddr(addr))
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("LookupPTR(%s) = %q, %v; want %q", addr, got, err, want)
		}
	}
	got, err := r.LookupTXT(ctx, "_dmarc.site.test")
	if want := []string{"v=DMARC1; p=reject; rua=mailto:café@site.test"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("LookupTXT = %q, %v; want %q", got, err, want)
	}
	if _, err := (&dns.Resolver{Servers: []string{silentServer(t)}, Timeout: testTimeout}).LookupTXT(ctx, "x.test"); err == nil {
		t.Error("LookupTXT from a silent server: no error")
	}
}

func TestExchangeDropsAnswerToAnotherQuestion(t *testing.T) {
	s := dnstest.Start(t)
	s.Handle(func(w mdns.ResponseWriter, req *mdns.Msg) {
		resp := new(mdns.Msg)
		resp.SetReply(req)
		resp.Question[0].Name = "other.test."
		w.WriteMsg(resp)
	})
	r := &dns.Resolver{Servers: []string{s.Addr}, Timeout: testTimeout}
	_, err := r.Exchange(context.Background(), question("site.test", mdns.TypeA))
	if !errors.Is(err, dns.ErrWrongQuestion) || !errors.Is(err, dns.ErrNoAnswer) {
		t.Errorf("got %v, want ErrWrongQuestion", err)
	}
}

func TestExchangeReportsGarbage(t *testing.T) {
	pc := listenUDP(t)
	go func() {
		buf := make([]byte, 2048)
		for {
			n, addr, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			// The query's ID, then bytes that are no DNS header.
			pc.WriteTo(append(buf[:2:n], 0x81, 0x80, 0xff, 0xff), addr)
		}
	}()
	r := &dns.Resolver{Servers: []string{pc.LocalAddr().String()}, Timeout: testTimeout}
	_, err := r.Exchange(context.Background(), question("site.test", mdns.TypeA))
	if !errors.Is(err, dns.ErrMalformed) {
		t.Errorf("got %v, want ErrMalformed", err)
	}
}

func TestExchangeRetriesOverflowingUDPAnswerOverTCP(t *testing.T) {
	s := dnstest.Start(t)
	s.Handle(func(w mdns.ResponseWriter, req *mdns.Msg) {
		resp := new(mdns.Msg)
		resp.SetReply(req)
		for i := range 60 {
			resp.Answer = append(resp.Answer, &mdns.A{Hdr: mdns.RR_Header{Name: req.Question[0].Name, Rrtype: mdns.TypeA, Class: mdns.ClassINET, Ttl: 60},
				A: net.IPv4(192, 0, 2, byte(i))})
		}
		if w.LocalAddr().Network() == "udp" {
			wire, _ := resp.Pack()
			w.Write(wire[:600]) // cut short, without the TC bit
			return
		}
		w.WriteMsg(resp)
	})
	r := &dns.Resolver{Servers: []string{s.Addr}, Timeout: testTimeout}
	resp, err := r.Exchange(context.Background(), question("big.test", mdns.TypeA))
	if err != nil || len(resp.Answer) != 60 {
		t.Fatalf("got %v, %v; want the 60 records over TCP", resp, err)
	}
}

// TestLookupAddrsAsksBothTypesOverOneSocket: A and AAAA leave from the
// same UDP socket, and a question the pair cannot settle (here AAAA,
// answered SERVFAIL by the first server) is still asked of the next.
func TestLookupAddrsAsksBothTypesOverOneSocket(t *testing.T) {
	var mu sync.Mutex
	from := map[uint16]string{}
	first := dnstest.Start(t)
	first.Handle(func(w mdns.ResponseWriter, req *mdns.Msg) {
		mu.Lock()
		if _, seen := from[req.Question[0].Qtype]; !seen {
			from[req.Question[0].Qtype] = w.RemoteAddr().String()
		}
		mu.Unlock()
		if req.Question[0].Qtype == mdns.TypeAAAA {
			resp := new(mdns.Msg)
			resp.SetRcode(req, mdns.RcodeServerFailure)
			w.WriteMsg(resp)
			return
		}
		first.ServeRecords(w, req)
	})
	first.Add(t, "site.test. 60 IN A 127.0.0.1")
	second := dnstest.Start(t)
	second.Add(t, "site.test. 60 IN AAAA ::1")
	r := &dns.Resolver{Servers: []string{first.Addr, second.Addr}, Timeout: testTimeout}
	got, err := r.LookupAddrs(context.Background(), "site.test")
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if from[mdns.TypeA] == "" || from[mdns.TypeA] != from[mdns.TypeAAAA] {
		t.Fatalf("A asked from %q, AAAA from %q: want one socket", from[mdns.TypeA], from[mdns.TypeAAAA])
	}
}

// TestLookupAddrsKeepsAnswerWhenOtherTypeIsDropped: a server that never
// answers AAAA still gives the A address, as when each type had its own
// socket.
func TestLookupAddrsKeepsAnswerWhenOtherTypeIsDropped(t *testing.T) {
	srv := dnstest.Start(t)
	srv.Add(t, "site.test. 60 IN A 127.0.0.1")
	srv.Handle(func(w mdns.ResponseWriter, req *mdns.Msg) {
		if req.Question[0].Qtype == mdns.TypeAAAA {
			return // dropped
		}
		srv.ServeRecords(w, req)
	})
	r := &dns.Resolver{Servers: []string{srv.Addr}, Timeout: testTimeout}
	got, err := r.LookupAddrs(context.Background(), "site.test")
	if err != nil || !slices.Equal(got, []netip.Addr{netip.MustParseAddr("127.0.0.1")}) {
		t.Fatalf("got %v, %v; want [127.0.0.1]", got, err)
	}
}
