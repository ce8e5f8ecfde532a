package sitediag_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	mdns "github.com/miekg/dns"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/dnstest"
)

func TestDNSSECJudgesAtConfigNow(t *testing.T) {
	inception := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	zone, anchor := dnstest.SignSite(t, inception, inception.AddDate(0, 1, 0))
	srv := dnstest.Start(t)
	srv.ServeZone(zone)
	for _, tc := range []struct {
		now  func() time.Time
		want string
	}{
		{func() time.Time { return inception.AddDate(0, 0, 1) }, "secure"},
		{nil, "bogus"}, // time.Now: long before the signatures' inception
	} {
		c := newClient(t, sitediag.Config{DNSServers: []string{srv.Addr}, Now: tc.now, DNSSECTrustAnchor: anchor})
		res, err := c.DNSSEC(context.Background(), "site.test", sitediag.DNSSECOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if string(res.Validation.Status) != tc.want {
			t.Errorf("got %+v, want %s", res.Validation, tc.want)
		}
	}
}

func TestDNSOperationsCancelled(t *testing.T) {
	srv := dnstest.Start(t)
	srv.Handle(func(mdns.ResponseWriter, *mdns.Msg) {}) // never answers
	c := newClient(t, sitediag.Config{DNSServers: []string{srv.Addr}})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := c.DNSSEC(ctx, "site.test", sitediag.DNSSECOptions{})
	if sitediag.CodeOf(err) != sitediag.CodeDNSSECCheckFailed || !errors.Is(err, context.Canceled) {
		t.Errorf("DNSSEC: got %v, want DNSSEC_CHECK_FAILED wrapping context.Canceled", err)
	}
	_, err = c.DNSRecords(ctx, "site.test", sitediag.DNSRecordsOptions{})
	if sitediag.CodeOf(err) != sitediag.CodeDNSLookupFailed || !errors.Is(err, context.Canceled) {
		t.Errorf("DNSRecords: got %v, want DNS_LOOKUP_FAILED wrapping context.Canceled", err)
	}
}

// A name the hosts file lists resolves to its addresses there, and the
// SSRF policy judges them: loopback is refused until the operator allows
// it, as for a name from DNS.
func TestHostsFileNamesStillJudged(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer site.Close()
	hosts := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(hosts, []byte("127.0.0.1 intranet.test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := dnstest.Start(t) // knows nothing of intranet.test
	target := "http://intranet.test:" + port(site.URL) + "/"
	for _, allow := range [][]netip.Prefix{nil, loopback} {
		c := newClient(t, sitediag.Config{DNSServers: []string{srv.Addr}, HostsFile: hosts, AllowNetworks: allow})
		res, err := c.Up(context.Background(), target, sitediag.UpOptions{})
		switch {
		case allow == nil && !errors.Is(err, sitediag.ErrTargetNotAllowed):
			t.Errorf("without an allow list: %+v, %v; want ErrTargetNotAllowed", res, err)
		case allow != nil && (err != nil || !res.Reachable):
			t.Errorf("with 127.0.0.1/32 allowed: %+v, %v; want reachable", res, err)
		}
	}
}
