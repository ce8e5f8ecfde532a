package sitediag

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"strings"
)

// ConfigFromEnv returns the Config the SITEDIAG_* environment variables
// describe (the library itself reads none); it is ConfigFrom(os.Getenv).
func ConfigFromEnv() (Config, error) { return ConfigFrom(os.Getenv) }

// ConfigFrom returns the Config that the settings getenv returns
// describe, by their SITEDIAG_* names; an empty value leaves a field at
// its zero value, the Config's default:
//
//	SITEDIAG_ALLOW_NETWORKS       AllowNetworks, CIDRs, comma-separated
//	SITEDIAG_DNS_SERVERS          DNSServers, host:port, comma-separated
//	SITEDIAG_DNSSEC_TRUST_ANCHOR  DNSSECTrustAnchor, a file
//	SITEDIAG_PROXIES              Proxies, country=URL, comma-separated
//	SITEDIAG_DATA_DIR             DataDir
//	SITEDIAG_CHROME_PATH          ChromePath
//	SITEDIAG_BROWSER_URL          BrowserURL
//	SITEDIAG_BROWSER_PROXY_ADDR   BrowserProxyAddr
//	SITEDIAG_BROWSER_PROXY_URL    BrowserProxyURL
//	SITEDIAG_LIGHTHOUSE_DIR       LighthouseDir
//
// The settings of the server alone (its address, keys, artifact store,
// Redis, metrics, logs) are the server's to read. A value that does not
// parse is an error naming its variable.
func ConfigFrom(getenv func(name string) string) (Config, error) {
	cfg := Config{
		DNSServers:        commaList(getenv("SITEDIAG_DNS_SERVERS")),
		DNSSECTrustAnchor: strings.TrimSpace(getenv("SITEDIAG_DNSSEC_TRUST_ANCHOR")),
		DataDir:           strings.TrimSpace(getenv("SITEDIAG_DATA_DIR")),
		ChromePath:        strings.TrimSpace(getenv("SITEDIAG_CHROME_PATH")),
		BrowserURL:        strings.TrimSpace(getenv("SITEDIAG_BROWSER_URL")),
		BrowserProxyAddr:  strings.TrimSpace(getenv("SITEDIAG_BROWSER_PROXY_ADDR")),
		BrowserProxyURL:   strings.TrimSpace(getenv("SITEDIAG_BROWSER_PROXY_URL")),
		LighthouseDir:     strings.TrimSpace(getenv("SITEDIAG_LIGHTHOUSE_DIR")),
	}
	var errs []error
	for _, cidr := range commaList(getenv("SITEDIAG_ALLOW_NETWORKS")) {
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			errs = append(errs, fmt.Errorf("SITEDIAG_ALLOW_NETWORKS: %q is not a CIDR", cidr))
			continue
		}
		cfg.AllowNetworks = append(cfg.AllowNetworks, p)
	}
	for _, item := range commaList(getenv("SITEDIAG_PROXIES")) {
		country, raw, ok := strings.Cut(item, "=")
		country = strings.ToLower(strings.TrimSpace(country))
		u, err := url.Parse(strings.TrimSpace(raw))
		if !ok || country == "" || err != nil || u.Host == "" {
			errs = append(errs, fmt.Errorf("SITEDIAG_PROXIES: %q is not country=url", item))
			continue
		}
		if cfg.Proxies == nil {
			cfg.Proxies = map[string]*url.URL{}
		}
		cfg.Proxies[country] = u
	}
	return cfg, errors.Join(errs...)
}

// commaList splits a comma-separated setting, dropping blanks.
func commaList(v string) []string {
	var out []string
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
