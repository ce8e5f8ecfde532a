package sitediag_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	mdns "github.com/miekg/dns"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/dnstest"
	"github.com/sitediag/sitediag/internal/porttest"
)

// spineClient is a client whose names resolve through a local DNS server
// and that may reach 127.0.0.1 alone: every other loopback address
// (127.0.0.2) stays refused.
func spineClient(t *testing.T) (*sitediag.Client, *dnstest.Server) {
	t.Helper()
	dns := dnstest.Start(t)
	return newClient(t, sitediag.Config{DNSServers: []string{dns.Addr}, AllowNetworks: loopback}), dns
}

// walks are the two operations that walk redirects hop by hop.
func walks(c *sitediag.Client) map[string]func(ctx context.Context, rawURL string) error {
	return map[string]func(ctx context.Context, rawURL string) error{
		"Up": func(ctx context.Context, u string) error {
			_, err := c.Up(ctx, u, sitediag.UpOptions{})
			return err
		},
		"RedirectCheck": func(ctx context.Context, u string) error {
			_, err := c.RedirectCheck(ctx, u, sitediag.RedirectCheckOptions{})
			return err
		},
	}
}

// wantError fails unless err is an *sitediag.Error with code.
func wantError(t *testing.T, what string, err error, code sitediag.Code) *sitediag.Error {
	t.Helper()
	var e *sitediag.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Errorf("%s: got %v, want %s", what, err, code)
		return nil
	}
	return e
}

func TestSpineRedirectLimits(t *testing.T) {
	c, dns := spineClient(t)
	dns.Add(t, "site.test. 60 IN A 127.0.0.1")
	port := porttest.Raw(t, func(port string) map[string]string {
		m := map[string]string{
			"/loop-a": porttest.RedirectTo("/loop-b"),
			"/loop-b": porttest.RedirectTo("http://site.test:" + port + "/loop-a"),
		}
		for i := range 15 {
			m["/hop"+strconv.Itoa(i)] = porttest.RedirectTo("/hop" + strconv.Itoa(i+1))
		}
		m["/hop15"] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
		for i := range 10 {
			m["/ten"+strconv.Itoa(i)] = porttest.RedirectTo("/ten" + strconv.Itoa(i+1))
		}
		m["/ten10"] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
		return m
	})
	base := "http://site.test:" + port
	ctx := context.Background()
	for name, walk := range walks(c) {
		for _, start := range []string{"/loop-a", "/hop0"} {
			err := walk(ctx, base+start)
			wantError(t, name+" "+start, err, sitediag.CodeTooManyRedirects)
			if !errors.Is(err, sitediag.ErrTooManyRedirects) {
				t.Errorf("%s %s: %v is not ErrTooManyRedirects", name, start, err)
			}
		}
	}
	// Exactly ten redirects is still fine.
	chain, err := c.RedirectCheck(ctx, base+"/ten0", sitediag.RedirectCheckOptions{})
	if err != nil || len(chain.Hops) != 11 {
		t.Fatalf("10 redirects: %v, %v; want 11 hops", chain, err)
	}
}

// TestSpineRedirectToRefusedAddress: a hop to an address outside the
// allow list is refused, and nothing reaches that address.
func TestSpineRedirectToRefusedAddress(t *testing.T) {
	c, dns := spineClient(t)
	dns.Add(t, "site.test. 60 IN A 127.0.0.1", "inside.test. 60 IN A 127.0.0.2")
	refusedPort, conns := porttest.Counting(t, "127.0.0.2:0")
	port := porttest.Raw(t, func(string) map[string]string {
		return map[string]string{
			"/literal": porttest.RedirectTo("http://127.0.0.2:" + refusedPort + "/"),
			"/name":    porttest.RedirectTo("http://inside.test:" + refusedPort + "/"),
		}
	})
	for name, walk := range walks(c) {
		for _, start := range []string{"/literal", "/name"} {
			err := walk(context.Background(), "http://site.test:"+port+start)
			wantError(t, name+" "+start, err, sitediag.CodeTargetNotAllowed)
		}
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("the refused listener saw %d connections, want 0", n)
	}
}

// TestSpineRebinding: a name that answers an allowed address first and a
// refused one next never reaches the refused one.
func TestSpineRebinding(t *testing.T) {
	c, dns := spineClient(t)
	var port string
	var conns *atomic.Int32
	// The same port on 127.0.0.1 (fixture) and 127.0.0.2 (refused).
	for range 20 {
		port = porttest.Raw(t, func(string) map[string]string {
			return map[string]string{"/": porttest.RedirectTo("/again"), "/again": "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"}
		})
		ln, err := net.Listen("tcp", "127.0.0.2:"+port)
		if err != nil {
			continue
		}
		ln.Close()
		_, conns = porttest.Counting(t, "127.0.0.2:"+port)
		break
	}
	if conns == nil {
		t.Fatal("could not find a port free on both 127.0.0.1 and 127.0.0.2")
	}
	var queries atomic.Int32
	dns.Handle(func(w mdns.ResponseWriter, req *mdns.Msg) {
		resp := new(mdns.Msg)
		resp.SetReply(req)
		if req.Question[0].Qtype == mdns.TypeA {
			ip := "127.0.0.1"
			if queries.Add(1) > 1 {
				ip = "127.0.0.2"
			}
			rr, _ := mdns.NewRR(req.Question[0].Name + " 0 IN A " + ip)
			resp.Answer = append(resp.Answer, rr)
		}
		w.WriteMsg(resp)
	})
	for name, walk := range walks(c) {
		queries.Store(0)
		// The fixture closes every connection, so the second hop dials
		// again, resolves again, gets the refused address and stops.
		wantError(t, name, walk(context.Background(), "http://rebind.test:"+port+"/"), sitediag.CodeTargetNotAllowed)
		if n := queries.Load(); n < 2 {
			t.Errorf("%s: %d A queries, want the second hop to resolve again", name, n)
		}
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("the rebound address saw %d connections, want 0", n)
	}
}

func TestSpineRefusedTargets(t *testing.T) {
	c, _ := spineClient(t)
	invalid := []string{
		"", "example.test", "ftp://example.test/", "http://user:pw@site.test/", "http://2130706433/",
		"http://0x7f.1/", "http://0x7f000001/", "http://127.1/", "http://0177.0.0.1/", "http://017700000001/",
		"http://[fe80::1%25lo]/", "http://exa\tmple.test/", "javascript:alert(1)", "http://%31%32%37.0.0.2/",
	}
	refused := []string{
		"http://127.0.0.2/", "http://0.0.0.0/", "http://[::1]/", "http://[::ffff:127.0.0.2]/", "http://[::]/",
		"http://169.254.169.254/latest/meta-data/", "http://[::ffff:169.254.169.254]/", "http://[64:ff9b::a9fe:a9fe]/",
		"http://[2002:a9fe:a9fe::]/", "http://10.0.0.1/", "http://192.168.1.1/", "http://100.64.0.1/", "http://[fe80::1]/",
		"http://[fd00::1]/", "http://224.0.0.1/", "http://255.255.255.255/",
	}
	ctx := context.Background()
	for name, walk := range walks(c) {
		for _, u := range invalid {
			wantError(t, name+" "+u, walk(ctx, u), sitediag.CodeInvalidURL)
		}
		for _, u := range refused {
			err := walk(ctx, u)
			if e := wantError(t, name+" "+u, err, sitediag.CodeTargetNotAllowed); e != nil && e.Details != "the target is not allowed" {
				t.Errorf("%s %s: details %q say more than the generic refusal", name, u, e.Details)
			}
			if !errors.Is(err, sitediag.ErrTargetNotAllowed) {
				t.Errorf("%s %s: %v is not ErrTargetNotAllowed", name, u, err)
			}
		}
	}
}

// TestSpineRedirectHopUnreachable: a hop that gets no response is
// CodeUnableToConnect, naming why.
func TestSpineRedirectHopUnreachable(t *testing.T) {
	c, dns := spineClient(t)
	dns.Add(t, "site.test. 60 IN A 127.0.0.1")
	closedPort := strconv.Itoa(int(porttest.Closed(t)))
	port := porttest.Raw(t, func(string) map[string]string {
		return map[string]string{"/": porttest.RedirectTo("http://site.test:" + closedPort + "/gone")}
	})
	_, err := c.RedirectCheck(context.Background(), "http://site.test:"+port+"/", sitediag.RedirectCheckOptions{})
	if e := wantError(t, "RedirectCheck", err, sitediag.CodeUnableToConnect); e != nil && !strings.Contains(e.Details, "connection refused") {
		t.Errorf("details %q do not say why", e.Details)
	}
}
