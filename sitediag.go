// Package sitediag diagnoses websites, domains and hosts: whether a site
// is up, its redirects, time to first byte and load time, headers, HTTP
// versions and broken links; its DNS records and DNSSEC; its TLS
// configuration; its open ports, ping and network path (MTR); and
// screenshots and PDFs of the rendered page in Chromium.
//
// Create a Client with New and call one method per operation:
//
//	c, err := sitediag.New(sitediag.Config{})
//	…
//	defer c.Close()
//	res, err := c.Up(ctx, "https://example.com", sitediag.UpOptions{})
//
// The package-level functions (Up, RedirectCheck, …) do the same on a
// default client built on first use with the zero Config. Options are
// passed by value and their zero value means the documented defaults.
//
// Every connection an operation makes, each redirect hop included, goes
// through one SSRF policy: private, loopback, link-local, metadata and
// other special addresses are refused unless Config.AllowNetworks exempts
// them, and names are resolved with Config.DNSServers.
//
// # Errors
//
// Operations return *Error, whose Code is the API's error code (such as
// CodeInvalidURL or CodeTargetNotAllowed) and whose Status is the HTTP
// status the API answers with. Branch with errors.As, or with errors.Is
// against the sentinels (ErrTargetNotAllowed, ErrTooManyRedirects, …),
// which match on Code; CodeOf returns the code of any error. Findings are
// data, not errors: a site that does not answer is an UpResult with
// Reachable false.
//
// # Concurrency
//
// A Client is safe for concurrent use by multiple goroutines; each call
// builds its own connections, so no state leaks between jobs. The
// browser operations share one Chromium per client, started on first
// use, each job in its own browser context behind its own filtering
// proxy; Config.MaxBrowserJobs bounds how many run at once. Close
// releases what the client started, the browser included.
package sitediag

import (
	"cmp"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sitediag/sitediag/brand"
	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/apitag"
	"github.com/sitediag/sitediag/internal/guardnet"
	"github.com/sitediag/sitediag/internal/proxygate"
	"github.com/sitediag/sitediag/internal/target"
	"github.com/sitediag/sitediag/internal/tracing"
	"github.com/sitediag/sitediag/lighthouse"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/portscan"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"golang.org/x/sync/singleflight"
)

// DefaultTimeout bounds an operation whose context has no deadline.
const DefaultTimeout = 60 * time.Second

// Config configures a Client; the library reads no environment variable,
// ConfigFromEnv reads the SITEDIAG_* ones into a Config. The zero value
// is a working configuration:
// the system's DNS servers, the full SSRF policy with no exceptions, and
// DefaultTimeout.
type Config struct {
	// AllowNetworks are networks exempt from the SSRF deny table, such
	// as an internal range the operator wants to diagnose. Empty means
	// no exception.
	AllowNetworks []netip.Prefix
	// DNSServers are host:port addresses (":53" is added when the port
	// is missing) used for every resolution, targets included. Empty
	// means the nameservers of /etc/resolv.conf.
	DNSServers []string
	// HostsFile answers the address lookups of targets for the names it
	// lists, before DNSServers, as the system resolver does; the SSRF
	// policy judges those addresses as any other. Record lookups
	// (DNSRecords, DNSSEC) ask DNSServers only. Empty means /etc/hosts.
	HostsFile string
	// DNSSECTrustAnchor is a file of DS or DNSKEY records (zone-file
	// form, one owner) where /dnssec's chain of trust starts. Empty means
	// the IANA root anchor built in (dns.RootTrustAnchor).
	DNSSECTrustAnchor string
	// Timeout bounds each operation whose context has no deadline. If
	// zero, DefaultTimeout.
	Timeout time.Duration
	// Proxies maps lower-case country codes ("us") to the proxy
	// (http://, https:// or socks5://) that a job with that proxyCountry
	// goes through. Proxies are the operator's and trusted; targets are
	// still resolved and checked before a request is handed to one.
	// Empty means no country is supported.
	Proxies map[string]*url.URL
	// Now returns the current time, against which validity periods
	// (DNSSEC signatures, certificate expiry) are judged. If nil,
	// time.Now.
	Now func() time.Time
	// ASN finds the origin AS of an address /mtr shows, as "AS64500";
	// an error or "" means unknown. If nil, the DNS lookup of
	// ASNOriginZone is used; with neither, every AS is "AS???".
	ASN func(ctx context.Context, addr netip.Addr) (string, error)
	// ASNOriginZone is an IP-to-ASN DNS zone answering TXT records in
	// Team Cymru's format ("64500 | 192.0.2.0/24 | ZZ | …"), such as
	// origin.asn.cymru.com, queried through DNSServers for IPv4 hops
	// when ASN is nil. Empty means no lookup.
	ASNOriginZone string
	// ASNOrigin6Zone is the same for IPv6 hops (origin6.asn.cymru.com).
	// Empty means no lookup.
	ASNOrigin6Zone string
	// RootCAs are the trust anchors TLSScan verifies certificates
	// against. If nil, the system's roots.
	RootCAs *x509.CertPool
	// ChromePath is the Chromium binary for the browser operations. If
	// empty, chromium, chromium-browser and google-chrome on PATH. Nothing is ever downloaded; without a
	// binary those operations fail with BROWSER_UNAVAILABLE.
	ChromePath string
	// BrowserURL, if set, is a running browser to use instead of
	// launching one: its DevTools URL (ws://…) or http://host:port; or
	// several, separated by commas, over which jobs are spread (the
	// least loaded first; one that cannot be reached is tried last for
	// a while; see browser.Fleet), each with MaxBrowserJobs slots. They
	// must run with browser.Flags (see browser.Config.RemoteURL) and
	// reach the jobs' filtering proxies: on this host's loopback (a
	// browser sharing this host's network) unless BrowserProxyAddr says
	// otherwise. Empty means a browser is launched.
	BrowserURL string
	// BrowserProxyAddr, if set, is where the browser jobs' filtering
	// proxies listen (host:port, port 0 for any) for browsers on other
	// hosts: one listener for every job, each job's proxy reached with
	// credentials of its own, fresh and random, that the job's page
	// answers the proxy's challenge with (see browser.AuthProxy) and that
	// stop working when the job ends; anything else is answered 407.
	// Empty means each job's proxy listens on a port of its own on
	// 127.0.0.1 with no credentials, for a browser on this host.
	// Lighthouse's proxies stay there in any case.
	BrowserProxyAddr string
	// BrowserProxyURL is that listener's address as the browsers reach
	// it (http://host[:port]; without a port, the port listened on) when
	// it is not BrowserProxyAddr itself: a name, an address behind NAT,
	// or any address of a listener on all of them (0.0.0.0). Empty means
	// http://BrowserProxyAddr. It needs BrowserProxyAddr.
	BrowserProxyURL string
	// MaxBrowserJobs is the number of pages rendered at once. If zero,
	// 2.
	MaxBrowserJobs int
	// MaxBrowserQueue is the number of browser jobs that may wait for a
	// slot; past it they fail with BUSY. If zero, four times
	// MaxBrowserJobs; negative means none wait.
	MaxBrowserQueue int
	// BrowserRestartAfter replaces the browser after that many jobs. If
	// zero, 100.
	BrowserRestartAfter int
	// BrowserJobTimeout bounds each browser job from the moment it has a
	// slot. If zero, 60 s.
	BrowserJobTimeout time.Duration
	// LighthouseDir holds node_modules/lighthouse. If empty, where make
	// setup installs it (lighthouse.DefaultDirs), whatever the working
	// directory.
	LighthouseDir string
	// LighthouseJobTimeout bounds each audit from the moment it has the
	// worker. If zero, 90 s.
	LighthouseJobTimeout time.Duration
	// NmapServices is the nmap-services file whose open frequencies rank
	// OpenPort's topPorts. If empty, portscan.NmapServicesPath, read
	// when nmap is installed there; without the file, the package's own
	// well-known port list ranks them (see portscan.DefaultRanking). It is
	// read on the first OpenPort; a file that does not parse fails that
	// scan with CodePortScanFailed.
	NmapServices string
	// DataDir is where the client keeps what outlives it: the default
	// brand cache's file (brand-cache.json). Empty means nothing is
	// kept on disk.
	DataDir string
	// BrandCache stores brand records. If nil, a MemoryBrandCache
	// (1000 records, 24 h), persisted under DataDir when set.
	BrandCache BrandCache
	// BrandEnricher, if set, adds to enriched brand records (a language
	// model, say). Nil means the extractive heuristics of brand.Enrich
	// only.
	BrandEnricher brand.Enricher
	// TracerProvider, if set, traces the operations with OpenTelemetry:
	// each call is a span named after it (sitediag.Up, …) with the
	// target and the options set, and on failure the error, the Error
	// status and the code (sitediag.error.code); under it, a span for each
	// name resolution (resolve), connection attempt (connect), TLS
	// handshake (tls) and browser job (browser job). The library brings
	// no exporter: the spans go wherever the provider sends them. Nil
	// means no tracing.
	TracerProvider trace.TracerProvider
}

// Client runs diagnoses. Build it with New; see the package doc for
// concurrency.
type Client struct {
	cfg      Config
	resolver *dns.Resolver
	guard    *guard.Guard
	browser  *browser.Fleet
	// gate serves the browser jobs' proxies to remote browsers
	// (BrowserProxyAddr); nil when they listen on loopback.
	gate       *proxygate.Gate
	lighthouse *lighthouse.Runner
	brandCache BrandCache
	// brandFlight shares one extraction among concurrent requests for
	// the same domain and mode.
	brandFlight singleflight.Group
	// ports ranks the ports of OpenPort's topPorts, read on first use
	// so that a client that never scans never reads nmap-services.
	ports func() (*portscan.Ranking, error)
	// tracer starts the operations' spans; a no-op one when
	// Config.TracerProvider is nil.
	tracer trace.Tracer
	// tags are the api tags of the options types, read once each.
	tags apitag.Cache
}

// New returns a Client for cfg, or an error when cfg is malformed.
func New(cfg Config) (*Client, error) {
	servers, err := normaliseServers(cfg.DNSServers)
	if err != nil {
		return nil, err
	}
	proxies, err := normaliseProxies(cfg.Proxies)
	if err != nil {
		return nil, err
	}
	cfg.Proxies = proxies
	cfg.DNSServers = servers
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	resolver := &dns.Resolver{Servers: servers, HostsFile: cfg.HostsFile}
	if cfg.DNSSECTrustAnchor != "" {
		if resolver.TrustAnchor, err = dns.ReadTrustAnchor(cfg.DNSSECTrustAnchor); err != nil {
			return nil, err
		}
	}
	g := guard.New(resolver, guard.NewPolicy(cfg.AllowNetworks))
	chrome := cfg.ChromePath
	var remotes []string
	for _, u := range strings.Split(cfg.BrowserURL, ",") {
		if u = strings.TrimSpace(u); u != "" {
			remotes = append(remotes, u)
		}
	}
	network := guardnet.Network(g)
	var gate *proxygate.Gate
	switch {
	case cfg.BrowserProxyAddr != "":
		if gate, err = proxygate.Listen(cfg.BrowserProxyAddr, cfg.BrowserProxyURL); err != nil {
			return nil, fmt.Errorf("sitediag: BrowserProxyAddr: %w", err)
		}
		network = guardnet.Gated(g, gate)
	case cfg.BrowserProxyURL != "":
		return nil, errors.New("sitediag: BrowserProxyURL needs BrowserProxyAddr")
	}
	pool, err := browser.NewFleet(browser.Config{
		Network:      network,
		Path:         chrome,
		MaxJobs:      cfg.MaxBrowserJobs,
		MaxQueue:     cfg.MaxBrowserQueue,
		RestartAfter: cfg.BrowserRestartAfter,
		JobTimeout:   cfg.BrowserJobTimeout,
	}, remotes)
	if err != nil {
		closeGate(gate)
		return nil, fmt.Errorf("sitediag: %w", err)
	}
	lh, err := lighthouse.New(lighthouse.Config{
		Network:    guardnet.Network(g),
		ChromePath: chrome,
		Dir:        cfg.LighthouseDir,
		JobTimeout: cfg.LighthouseJobTimeout,
	})
	if err != nil {
		pool.Close()
		closeGate(gate)
		return nil, fmt.Errorf("sitediag: %w", err)
	}
	cache := cfg.BrandCache
	if cache == nil {
		var file string
		if cfg.DataDir != "" {
			file = filepath.Join(cfg.DataDir, "brand-cache.json")
		}
		cache = NewMemoryBrandCache(0, 0, file)
	}
	provider := cfg.TracerProvider
	if provider == nil {
		provider = noop.NewTracerProvider()
	}
	return &Client{
		cfg:        cfg,
		tracer:     provider.Tracer(tracing.Name),
		resolver:   resolver,
		guard:      g,
		browser:    pool,
		gate:       gate,
		lighthouse: lh,
		brandCache: cache,
		ports: sync.OnceValues(func() (*portscan.Ranking, error) {
			return portscan.LoadRanking(cmp.Or(cfg.NmapServices, portscan.NmapServicesPath))
		}),
	}, nil
}

func normaliseServers(in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	for _, s := range in {
		if _, err := netip.ParseAddr(s); err == nil {
			s = net.JoinHostPort(s, "53")
		}
		if _, err := netip.ParseAddrPort(s); err != nil {
			return nil, fmt.Errorf("sitediag: DNS server %q is not an IP address with an optional port", s)
		}
		out = append(out, s)
	}
	return out, nil
}

func normaliseProxies(in map[string]*url.URL) (map[string]*url.URL, error) {
	out := make(map[string]*url.URL, len(in))
	for country, u := range in {
		if u == nil || u.Host == "" {
			return nil, fmt.Errorf("sitediag: proxy for %q has no host", country)
		}
		switch u.Scheme {
		case "http", "https", "socks5", "socks5h":
		default:
			return nil, fmt.Errorf("sitediag: proxy for %q: scheme %q is not http, https or socks5", country, u.Scheme)
		}
		out[strings.ToLower(country)] = u
	}
	return out, nil
}

// Close releases what the client started: it stops the browser and the
// Lighthouse worker (running jobs fail) and waits until its processes are gone. Do not use
// the client after Close.
func (c *Client) Close() error {
	c.lighthouse.Close()
	err := c.browser.Close()
	closeGate(c.gate)
	return err
}

// closeGate closes gate, if there is one.
func closeGate(gate *proxygate.Gate) {
	if gate != nil {
		gate.Close()
	}
}

// withTimeout applies the client's timeout when ctx has no deadline.
func (c *Client) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.cfg.Timeout)
}

// defaultClient is the client the package-level functions use, built on
// first use with the zero Config. It is not exported, so that no caller
// can Close it under the others; it lives as long as the process.
var defaultClient = sync.OnceValues(func() (*Client, error) { return New(Config{}) })

// onDefault runs an operation on the default client.
func onDefault[O, R any](ctx context.Context, rawURL string, opts O, op func(*Client, context.Context, string, O) (R, error)) (R, error) {
	c, err := defaultClient()
	if err != nil {
		var zero R
		return zero, err
	}
	return op(c, ctx, rawURL, opts)
}

// Stats are the client's counters and gauges, for metrics.
type Stats struct {
	// Browser is the browser pool's.
	Browser browser.PoolStats
	// Refused counts the addresses the SSRF policy refused since the
	// client was built, by class: loopback, private, link-local,
	// metadata, multicast, unspecified, shared, special-purpose.
	Refused map[string]uint64
}

// Stats returns the client's counters and gauges now.
func (c *Client) Stats() Stats {
	return Stats{Browser: c.browser.Stats(), Refused: c.guard.Refusals()}
}

// parseURL parses an operation's url field, mapping refusals to
// INVALID_URL.
func parseURL(raw string) (*target.Target, error) {
	t, err := target.ParseURL(raw)
	if err != nil {
		return nil, invalidURL(err)
	}
	return t, nil
}

// parseHost parses the url field of the host-level operations: a URL, a
// bare host or an IP literal.
func parseHost(raw string) (*target.Target, error) {
	t, err := target.ParseHost(raw)
	if err != nil {
		return nil, invalidURL(err)
	}
	return t, nil
}

// parseDomain parses the url field of the DNS operations: what parseHost
// accepts, with DNS name rules (underscore labels such as _dmarc).
func parseDomain(raw string) (*target.Target, error) {
	t, err := target.ParseDomain(raw)
	if err != nil {
		return nil, invalidURL(err)
	}
	return t, nil
}

func invalidURL(err error) *Error {
	var te *target.Error
	if errors.As(err, &te) {
		return NewError(CodeInvalidURL, err, "%s", te.Reason)
	}
	return NewError(CodeInvalidURL, err, "url is not a valid http or https URL")
}

// notAllowed is the one refusal; its details never say what was refused.
func notAllowed(err error) *Error {
	return NewError(CodeTargetNotAllowed, err, "the target is not allowed")
}

// urlVia checks rawURL as parseURL does and returns it with the proxy
// configured for country, as proxyFor does.
func (c *Client) urlVia(rawURL, country string) (*target.Target, *url.URL, error) {
	t, err := parseURL(rawURL)
	if err != nil {
		return nil, nil, err
	}
	proxy, err := c.proxyFor(country)
	if err != nil {
		return nil, nil, err
	}
	return t, proxy, nil
}

// proxyFor returns the proxy configured for country, nil for "", or
// PROXY_COUNTRY_UNSUPPORTED.
func (c *Client) proxyFor(country string) (*url.URL, error) {
	if country == "" {
		return nil, nil
	}
	if u, ok := c.cfg.Proxies[strings.ToLower(country)]; ok {
		return u, nil
	}
	return nil, NewError(CodeProxyCountryUnsupported, nil, "proxyCountry: no proxy is configured for %q", country)
}
