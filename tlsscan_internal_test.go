package sitediag

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/sitediag/sitediag/tls"
)

func TestTLSTargetPort(t *testing.T) {
	tests := []struct {
		url     string
		port    uint16
		display string
	}{
		{"https://site.test", 443, "site.test"},
		{"http://site.test/x", 443, "site.test"},
		{"http://site.test:80", 80, "site.test:80"},
		{"https://site.test:443", 443, "site.test"},
		{"https://site.test:8443", 8443, "site.test:8443"},
		{"https://[2001:db8::1]", 443, "[2001:db8::1]"},
		{"https://[2001:db8::1]:8443", 8443, "[2001:db8::1]:8443"},
	}
	for _, tt := range tests {
		got, err := tlsTarget(tt.url)
		if err != nil {
			t.Fatalf("%s: %v", tt.url, err)
		}
		if got.Port != tt.port || got.Display() != tt.display {
			t.Errorf("%s: got port %d display %q, want %d %q", tt.url, got.Port, got.Display(), tt.port, tt.display)
		}
	}
}

// A port that never answers makes every probe's dial time out, and a
// dial's timeout matches context.DeadlineExceeded: it is still a
// handshake failure (422), not a scan that ran out of time (500).
func TestMapTLSErrorDialTimeout(t *testing.T) {
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	var d net.Dialer
	_, dialErr := d.DialContext(ctx, "tcp", "127.0.0.1:1")
	if !errors.Is(dialErr, context.DeadlineExceeded) {
		t.Fatalf("dial error %v does not match DeadlineExceeded; the test needs it to", dialErr)
	}
	if got := mapTLSError(fmt.Errorf("%w: %w", tls.ErrNoProtocol, dialErr)).Code; got != CodeTLSHandshakeFailed {
		t.Errorf("no protocol after dial timeouts: got %s, want %s", got, CodeTLSHandshakeFailed)
	}
	refused := mapTLSError(&tls.NoProtocolError{Reason: "connection refused", Err: syscall.ECONNREFUSED})
	if want := "unable to establish a TLS connection with the target server: connection refused"; refused.Code != CodeTLSHandshakeFailed || refused.Details != want {
		t.Errorf("refused: got %s %q, want %s %q", refused.Code, refused.Details, CodeTLSHandshakeFailed, want)
	}
	if got := mapTLSError(context.DeadlineExceeded).Code; got != CodeTLSScanFailed {
		t.Errorf("scan out of time: got %s, want %s", got, CodeTLSScanFailed)
	}
}

// ProbeTimeout is refused out of its range, before anything is dialled.
func TestTLSScanProbeTimeoutRange(t *testing.T) {
	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, d := range []Seconds{-1, 30.001} {
		_, err := c.TLSScan(context.Background(), "https://site.test", TLSScanOptions{ProbeTimeout: d})
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeInvalidParameters || e.Details != "probeTimeout: must be between 0 and 30" {
			t.Errorf("probe timeout %v: got %v, want INVALID_PARAMETERS for probeTimeout", d, err)
		}
	}
}
