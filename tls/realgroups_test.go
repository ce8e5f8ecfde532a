package tls

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// TestRealLegacyCurves: the ECDHE curves of TLS 1.0–1.2 enumerated, in
// s_server's order (-serverpref), beside the TLS 1.3 groups. sslscan
// and testssl list the same five: "Elliptic curves offered: prime256v1
// secp384r1 secp521r1 X25519 X448".
func TestRealLegacyCurves(t *testing.T) {
	f := needOpenSSL(t)
	res := f.scan(t, f.sServer("-serverpref", "-groups", "P-384:P-256:X25519:X448:P-521"))
	names := func(gs []Group) string {
		var out []string
		for _, g := range gs {
			out = append(out, g.Name)
		}
		return fmt.Sprint(out)
	}
	got, got13 := names(res.SupportedGroups.TLS10To12), names(res.SupportedGroups.TLS13)
	t.Logf("TLS 1.0-1.2 curves %s; TLS 1.3 groups %s", got, got13)
	if want := "[P-384 P-256 X25519 X448 P-521]"; got != want {
		t.Errorf("tls10To12: got %s, want %s", got, want)
	}
	if got13 == "[]" {
		t.Errorf("tls13 groups: got none")
	}
}

// TestRealChainOrder: s_server sending leaf, root, intermediate: the
// chain is complete (nothing missing) but not ordered (testssl:
// "Chain of trust ... ordering problem"; openssl s_client still
// verifies it, 0 (ok)).
func TestRealChainOrder(t *testing.T) {
	f := needOpenSSL(t)
	root, _ := os.ReadFile(f.root)
	inter, _ := os.ReadFile(f.inter)
	swapped := filepath.Join(f.dir, "swapped.pem")
	if err := os.WriteFile(swapped, append(root, inter...), 0o600); err != nil {
		t.Fatal(err)
	}
	res := f.scan(t, f.sServerChain(swapped))
	c := res.Certificate.Chain
	t.Logf("length %d, complete %v, ordered %v, trusted %v", c.Length, c.Complete, c.Ordered, res.Certificate.Trusted)
	if c.Length != 3 || !c.Complete || c.Ordered || !res.Certificate.Trusted {
		t.Errorf("got %+v trusted %v; want 3 certificates, complete, not ordered, trusted", c, res.Certificate.Trusted)
	}
}

// TestScanTCPReset: a server that resets every connection is named for
// it, not for a clean close.
func TestScanTCPReset(t *testing.T) {
	addr := serve(t, func(c net.Conn) {
		c.(*net.TCPConn).SetLinger(0) // close with RST
	})
	_, err := scanAt(t, addr, "reset.test", nil)
	if want := "the server reset the connection (TCP RST) without answering"; reason(err) != want {
		t.Errorf("got %v, want %q", err, want)
	}
}
