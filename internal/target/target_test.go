package target

import (
	"errors"
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		raw, url, host, display string
		port                    uint16
	}{
		{"https://example.com", "https://example.com/", "example.com", "example.com", 443},
		{"http://Example.COM./a/b?c=d#frag", "http://example.com/a/b?c=d", "example.com", "example.com", 80},
		{"HTTPS://example.com:443/", "https://example.com/", "example.com", "example.com", 443},
		{"http://example.com:8080", "http://example.com:8080/", "example.com", "example.com:8080", 8080},
		{"https://bücher.example/", "https://xn--bcher-kva.example/", "xn--bcher-kva.example", "xn--bcher-kva.example", 443},
		{"http://93.184.216.34/", "http://93.184.216.34/", "93.184.216.34", "93.184.216.34", 80},
		{"http://[2606:4700::1]:8443/", "http://[2606:4700::1]:8443/", "2606:4700::1", "[2606:4700::1]:8443", 8443},
		{"http://[::FFFF:8.8.8.8]/", "http://[::ffff:8.8.8.8]/", "::ffff:8.8.8.8", "[::ffff:8.8.8.8]", 80},
		{"  https://example.com/%7Euser  ", "https://example.com/%7Euser", "example.com", "example.com", 443},
		{"http://a.1b/", "http://a.1b/", "a.1b", "a.1b", 80},
	}
	for _, tt := range tests {
		got, err := ParseURL(tt.raw)
		if err != nil {
			t.Errorf("ParseURL(%q): %v", tt.raw, err)
			continue
		}
		if got.URL.String() != tt.url || got.Host != tt.host || got.Display() != tt.display || got.Port != tt.port {
			t.Errorf("ParseURL(%q) = %s host %s display %s port %d; want %s %s %s %d",
				tt.raw, got.URL, got.Host, got.Display(), got.Port, tt.url, tt.host, tt.display, tt.port)
		}
	}
}

func TestParseURLRefuses(t *testing.T) {
	long := strings.Repeat("a", 63)
	for _, raw := range []string{
		"",
		"example.com",
		"ftp://example.com/",
		"file:///etc/passwd",
		"javascript:alert(1)",
		"http:example.com",
		"http://user:pass@example.com/",
		"http://user@example.com/",
		"http://exa\nmple.com/",
		"http://example.com/\x7f",
		"http://",
		"http://:80/",
		"http://example.com:/",
		"http://example.com:0/",
		"http://example.com:65536/",
		"http://a..b/",
		"http://" + strings.Repeat("a", 64) + ".com/",
		"http://" + strings.Repeat(long+".", 4) + "com/",
		"http://2130706433/",
		"http://0x7f.1/",
		"http://0x7f000001/",
		"http://127.1/",
		"http://0177.0.0.1/",
		"http://127.0.0.01/",
		"http://1.2.3.4.5/",
		"http://example.123/",
		"http://[fe80::1%25eth0]/",
		"http://[::1/",
		"http://exa mple.com/",
	} {
		if got, err := ParseURL(raw); err == nil {
			t.Errorf("ParseURL(%q) = %v, want an error", raw, got)
		} else if !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseURL(%q) error %v does not wrap ErrInvalid", raw, err)
		}
	}
}

func TestParseHost(t *testing.T) {
	tests := []struct {
		raw, host string
		port      uint16
		ip        bool
	}{
		{"example.com", "example.com", 0, false},
		{"EXAMPLE.com.", "example.com", 0, false},
		{"example.com:8443", "example.com", 8443, false},
		{"https://example.com/x", "example.com", 443, false},
		{"8.8.8.8", "8.8.8.8", 0, true},
		{"2606:4700::1111", "2606:4700::1111", 0, true},
		{"[2606:4700::1111]", "2606:4700::1111", 0, true},
		{"[2606:4700::1111]:53", "2606:4700::1111", 53, true},
	}
	for _, tt := range tests {
		got, err := ParseHost(tt.raw)
		if err != nil {
			t.Errorf("ParseHost(%q): %v", tt.raw, err)
			continue
		}
		if got.Host != tt.host || got.Port != tt.port || got.IsIP() != tt.ip {
			t.Errorf("ParseHost(%q) = %s port %d ip %v; want %s %d %v", tt.raw, got.Host, got.Port, got.IsIP(), tt.host, tt.port, tt.ip)
		}
	}
	for _, raw := range []string{"", "example.com/path", "user@example.com", "2130706433", "127.1", "0x7f.0.0.1", "a b", "ftp://x.com"} {
		if _, err := ParseHost(raw); err == nil {
			t.Errorf("ParseHost(%q) succeeded, want an error", raw)
		}
	}
}

func TestParseDomainAcceptsUnderscoreLabels(t *testing.T) {
	tests := []struct{ raw, host string }{
		{"_dmarc.example.com", "_dmarc.example.com"},
		{"selector1._domainkey.Example.com.", "selector1._domainkey.example.com"},
		{"_sip._tcp.example.com", "_sip._tcp.example.com"},
		{"_mta-sts.example.com", "_mta-sts.example.com"},
		{"_smtp._tls.example.com", "_smtp._tls.example.com"},
		{"_acme-challenge.bücher.example", "_acme-challenge.xn--bcher-kva.example"},
		{"https://_dmarc.example.com/", "_dmarc.example.com"},
		{"example.com", "example.com"},
		{"8.8.8.8", "8.8.8.8"},
	}
	for _, tt := range tests {
		got, err := ParseDomain(tt.raw)
		if err != nil {
			t.Errorf("ParseDomain(%q): %v", tt.raw, err)
			continue
		}
		if got.Host != tt.host {
			t.Errorf("ParseDomain(%q).Host = %q, want %q", tt.raw, got.Host, tt.host)
		}
	}
	for _, raw := range []string{"", "a..b", "ex*ample.com", "exa$mple.com", "2130706433", "example.com/path", strings.Repeat("a", 64) + ".com"} {
		if _, err := ParseDomain(raw); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseDomain(%q) error = %v, want ErrInvalid", raw, err)
		}
	}
	// The HTTP tools keep the stricter host rules.
	if _, err := ParseHost("_dmarc.example.com"); err == nil {
		t.Error("ParseHost(_dmarc.example.com) succeeded; host names keep IDNA rules")
	}
}
