package netx_test

import (
	"errors"
	"io"
	"testing"

	"github.com/sitediag/sitediag/net/netx"
)

func TestTLSConfigSendsSNIForNamesOnly(t *testing.T) {
	for _, tc := range []struct{ host, sni string }{
		{"site.test", "site.test"},
		{"192.0.2.1", ""},
		{"2001:db8::1", ""},
		{"", ""},
	} {
		cfg := netx.TLSConfig(tc.host, "h2")
		if cfg.ServerName != tc.sni || !cfg.InsecureSkipVerify || len(cfg.NextProtos) != 1 || cfg.NextProtos[0] != "h2" {
			t.Errorf("TLSConfig(%q) = SNI %q, skip %v, ALPN %v; want SNI %q, no verification, [h2]",
				tc.host, cfg.ServerName, cfg.InsecureSkipVerify, cfg.NextProtos, tc.sni)
		}
	}
}

func TestProxyErrorWrapsItsCause(t *testing.T) {
	err := error(&netx.ProxyError{Proxy: "proxy.test:3128", Err: io.ErrUnexpectedEOF})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("%v does not wrap its cause", err)
	}
	if got, want := err.Error(), "proxy proxy.test:3128: unexpected EOF"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
