package dns_test

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/dnstest"
)

// A name the hosts file lists is answered from it, in any letter case and
// with or without the trailing dot, before the servers (which say
// otherwise) are asked; an unlisted name goes to the servers; record
// lookups ask the servers only; an edit of the file is seen at once.
func TestHostsFile(t *testing.T) {
	s := dnstest.Start(t)
	s.Add(t, "intranet.test. 60 IN A 192.0.2.1", "other.test. 60 IN A 192.0.2.2")
	hosts := filepath.Join(t.TempDir(), "hosts")
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(hosts, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("# comment\n::1 intranet.test\n127.0.0.9\tIntranet.Test. alias.test # the box\nnot-an-address broken.test\n")
	r := &dns.Resolver{Servers: []string{s.Addr}, Timeout: testTimeout, HostsFile: hosts}
	ctx := context.Background()
	lookup := func(host string) []netip.Addr {
		t.Helper()
		addrs, err := r.LookupAddrs(ctx, host)
		if err != nil {
			t.Fatalf("LookupAddrs(%s): %v", host, err)
		}
		return addrs
	}
	want := []netip.Addr{netip.MustParseAddr("127.0.0.9"), netip.MustParseAddr("::1")}
	for _, host := range []string{"intranet.test", "INTRANET.test."} {
		if got := lookup(host); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v from the hosts file", host, got, want)
		}
	}
	if got := lookup("alias.test"); !slices.Equal(got, want[:1]) {
		t.Errorf("alias.test: %v, want 127.0.0.9", got)
	}
	if got := lookup("other.test"); !slices.Equal(got, []netip.Addr{netip.MustParseAddr("192.0.2.2")}) {
		t.Errorf("other.test: %v, want the server's 192.0.2.2", got)
	}
	recs, err := r.LookupRecords(ctx, "intranet.test", []string{"A"})
	if err != nil || len(recs.A) != 1 || recs.A[0] != "192.0.2.1" {
		t.Errorf("A records of intranet.test: %+v, %v; want the server's 192.0.2.1", recs, err)
	}

	// The same size, another time: read again.
	write("# comment\n::1 intranet.test\n127.0.0.8\tIntranet.Test. alias.test # the box\nnot-an-address broken.test\n")
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(hosts, later, later); err != nil {
		t.Fatal(err)
	}
	if got := lookup("intranet.test"); got[0] != netip.MustParseAddr("127.0.0.8") {
		t.Errorf("after the edit: %v, want 127.0.0.8 first", got)
	}
	os.Remove(hosts)
	if got := lookup("intranet.test"); !slices.Equal(got, []netip.Addr{netip.MustParseAddr("192.0.2.1")}) {
		t.Errorf("without the file: %v, want the server's 192.0.2.1", got)
	}
}
