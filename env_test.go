package sitediag_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sitediag/sitediag"
)

func TestConfigFrom(t *testing.T) {
	env := map[string]string{
		"SITEDIAG_ALLOW_NETWORKS":      " 127.0.0.1/32, ::1/128 ,",
		"SITEDIAG_DNS_SERVERS":         "127.0.0.1:5353,[::1]:53",
		"SITEDIAG_DNSSEC_TRUST_ANCHOR": "/etc/anchor.ds",
		"SITEDIAG_PROXIES":             "US=http://proxy.test:3128, de=socks5://u:p@proxy.test:1080",
		"SITEDIAG_DATA_DIR":            "/var/lib/sitediag",
		"SITEDIAG_CHROME_PATH":         "/usr/bin/chromium",
		"SITEDIAG_BROWSER_URL":         "ws://b1.test:9222,ws://b2.test:9222",
		"SITEDIAG_BROWSER_PROXY_ADDR":  "0.0.0.0:9000",
		"SITEDIAG_BROWSER_PROXY_URL":   "http://gate.test:9000",
		"SITEDIAG_LIGHTHOUSE_DIR":      "/opt/lighthouse",
		"SITEDIAG_API_KEYS":            "not the client's",
	}
	cfg, err := sitediag.ConfigFrom(func(name string) string { return env[name] })
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{
		"allow": cfg.AllowNetworks, "dns": cfg.DNSServers, "anchor": cfg.DNSSECTrustAnchor,
		"us": cfg.Proxies["us"].String(), "de": cfg.Proxies["de"].String(), "proxies": len(cfg.Proxies),
		"data": cfg.DataDir, "chrome": cfg.ChromePath, "browser": cfg.BrowserURL,
		"gateAddr": cfg.BrowserProxyAddr, "gateURL": cfg.BrowserProxyURL, "lighthouse": cfg.LighthouseDir,
	}
	want := map[string]any{
		"allow": []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")},
		"dns":   []string{"127.0.0.1:5353", "[::1]:53"}, "anchor": "/etc/anchor.ds",
		"us": "http://proxy.test:3128", "de": "socks5://u:p@proxy.test:1080", "proxies": 2,
		"data": "/var/lib/sitediag", "chrome": "/usr/bin/chromium", "browser": "ws://b1.test:9222,ws://b2.test:9222",
		"gateAddr": "0.0.0.0:9000", "gateURL": "http://gate.test:9000", "lighthouse": "/opt/lighthouse",
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
		t.Errorf("ConfigFrom (-want +got):\n%s", diff)
	}

	empty, err := sitediag.ConfigFrom(func(string) string { return "" })
	if err != nil || !cmp.Equal(empty, sitediag.Config{}) {
		t.Errorf("nothing set: %+v, %v; want the zero Config", empty, err)
	}

	_, err = sitediag.ConfigFrom(func(name string) string {
		return map[string]string{"SITEDIAG_ALLOW_NETWORKS": "10.0.0.0/8,not-a-cidr", "SITEDIAG_PROXIES": "nowhere"}[name]
	})
	if err == nil || !strings.Contains(err.Error(), `SITEDIAG_ALLOW_NETWORKS: "not-a-cidr" is not a CIDR`) ||
		!strings.Contains(err.Error(), `SITEDIAG_PROXIES: "nowhere" is not country=url`) {
		t.Errorf("bad values: %v, want both named", err)
	}
}

// TestConfigFromEnv reads the process's environment.
func TestConfigFromEnv(t *testing.T) {
	t.Setenv("SITEDIAG_DNS_SERVERS", "127.0.0.1:5353")
	t.Setenv("SITEDIAG_ALLOW_NETWORKS", "")
	cfg, err := sitediag.ConfigFromEnv()
	if err != nil || len(cfg.DNSServers) != 1 || cfg.DNSServers[0] != "127.0.0.1:5353" || cfg.AllowNetworks != nil {
		t.Errorf("ConfigFromEnv = %+v, %v", cfg, err)
	}
}
