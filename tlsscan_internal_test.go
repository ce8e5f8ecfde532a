package sitediag

import "testing"

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
