package sitediag_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sitediag/sitediag"
)

// A malformed nmap-services does not stop New: it is read on the first
// OpenPort, which fails with PORT_SCAN_FAILED.
func TestOpenPortWithAMalformedNmapServices(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "nmap-services")
	if err := os.WriteFile(bad, []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, sitediag.Config{NmapServices: bad, AllowNetworks: loopback})
	_, err := c.OpenPort(context.Background(), "127.0.0.1", sitediag.OpenPortOptions{TopPorts: 50})
	if sitediag.CodeOf(err) != sitediag.CodePortScanFailed {
		t.Fatalf("OpenPort: %v, want PORT_SCAN_FAILED", err)
	}
}
