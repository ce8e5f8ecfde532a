// Command server runs the Website Diagnostics HTTP API, with the report
// page (httpapi.UI) at /ui/.
//
// Every setting is a flag whose default comes from an environment
// variable (the names are part of the contract):
//
//	SITEDIAG_ADDR                -addr                listen address (127.0.0.1:8080)
//	SITEDIAG_API_KEYS            -api-keys            comma list; empty: one is generated, printed and kept in <data-dir>/api-key
//	SITEDIAG_PUBLIC_URL          -public-url          absolute base URL for artifact links
//	SITEDIAG_DATA_DIR            -data-dir            where artifacts and the brand cache are kept
//	SITEDIAG_ALLOW_NETWORKS      -allow-networks      CIDRs exempt from the SSRF deny table
//	SITEDIAG_DNS_SERVERS         -dns-servers         host:port list used for every resolution
//	SITEDIAG_CHROME_PATH         -chrome-path         Chromium binary
//	SITEDIAG_LIGHTHOUSE_DIR      -lighthouse-dir      folder holding node_modules/lighthouse (default: where make setup installs it)
//	SITEDIAG_BROWSER_URL         -browser-url         remote browser (CDP URL), or a comma list to spread jobs over
//	SITEDIAG_BROWSER_PROXY_ADDR  -browser-proxy-addr  host:port the browser jobs' proxy listens on for browsers on other hosts; none by default (loopback)
//	SITEDIAG_BROWSER_PROXY_URL   -browser-proxy-url   http://host[:port] the browsers reach that proxy at (default http://<proxy addr>)
//	SITEDIAG_PROXIES             -proxies             country proxies, us=http://…,de=socks5://…
//	SITEDIAG_RATE_LIMIT          -rate-limit          requests per second per key; 0 = no limit (10)
//	SITEDIAG_ARTIFACTS_URL       -artifacts-url       file:///dir (default <data-dir>/artifacts) or s3://bucket?endpoint=…&region=…
//	SITEDIAG_ARTIFACTS_PRESIGN   -artifacts-presign   1: artifact links are pre-signed bucket URLs
//	SITEDIAG_REDIS_URL           -redis-url           redis://…: rate limits and the brand cache shared by every replica
//	SITEDIAG_CORS_ORIGINS        -cors-origins        browser origins allowed across origins, comma list or *; none by default
//	SITEDIAG_METRICS_ADDR        -metrics-addr        listen address of the Prometheus /metrics endpoint; none by default
//	SITEDIAG_LOG_FORMAT          -log-format          text or json (text)
//
// With SITEDIAG_REDIS_URL set and Redis down, the server fails open:
// each replica limits keys on its own, /brand extracts without the cache,
// and /health/service reports the service "redis" down.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/httpapi"
	"github.com/sitediag/sitediag/httpapi/middleware"
	"github.com/sitediag/sitediag/redisbrand"
	"github.com/sitediag/sitediag/redislimit"
)

// settings are the server's configuration after flags and environment.
type settings struct {
	addr, apiKeys, publicURL, dataDir, corsOrigins string
	metricsAddr, logFormat, artifactsURL, redisURL string
	presign                                        bool
	rateLimit                                      float64
	// client are the flags of the client's settings, by the variable
	// each stands for (sitediag.ConfigFrom reads them by that name).
	client map[string]*string
}

func main() {
	s, err := parseSettings(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return // -h: the flags are printed
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err == nil && s.logFormat == "json" {
		log = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	if err == nil {
		err = run(s, log)
	}
	if err != nil {
		log.Error("server stopped", "err", err)
		os.Exit(1)
	}
}

func parseSettings(args []string) (*settings, error) {
	s := &settings{client: map[string]*string{}}
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	// setting declares the flag -name, whose default is the environment
	// variable SITEDIAG_<NAME> (-name upper-cased, dashes as
	// underscores), def when that is unset.
	setting := func(p *string, name, def, usage string) (env string) {
		env = "SITEDIAG_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if v, ok := os.LookupEnv(env); ok {
			def = v
		}
		fs.StringVar(p, name, def, usage+" ("+env+")")
		return env
	}
	// clientSetting declares the flag of a setting of the client's.
	clientSetting := func(name, usage string) {
		p := new(string)
		s.client[setting(p, name, "", usage)] = p
	}
	setting(&s.addr, "addr", "127.0.0.1:8080", "listen address")
	setting(&s.apiKeys, "api-keys", "", "comma-separated API keys")
	setting(&s.publicURL, "public-url", "", "absolute base URL for artifact links")
	// The data directory is a setting of the server's and of the client's.
	s.client[setting(&s.dataDir, "data-dir", filepath.Join(os.TempDir(), "sitediag"), "data directory")] = &s.dataDir
	clientSetting("allow-networks", "CIDRs exempt from the deny table")
	clientSetting("dns-servers", "DNS servers, host:port")
	clientSetting("chrome-path", "Chromium binary")
	clientSetting("lighthouse-dir", "folder holding node_modules/lighthouse; default where make setup installs it")
	clientSetting("browser-url", "remote browser CDP URL")
	clientSetting("browser-proxy-addr", "host:port the browser jobs' filtering proxy listens on for remote browsers, with per-job credentials")
	clientSetting("browser-proxy-url", "http://host[:port] remote browsers reach that proxy at")
	clientSetting("proxies", "country proxies cc=url,…")
	setting(&s.corsOrigins, "cors-origins", "", "origins allowed to call the API from a browser, comma list or *")
	setting(&s.metricsAddr, "metrics-addr", "", "listen address of /metrics, none when empty")
	setting(&s.logFormat, "log-format", "text", "log format, text or json")
	setting(&s.artifactsURL, "artifacts-url", "", "artifact store: file:///dir or s3://bucket?…; default <data-dir>/artifacts")
	setting(&s.redisURL, "redis-url", "", "Redis for shared rate limits and brand cache")
	var presign, rate string
	setting(&presign, "artifacts-presign", "0", "1: artifact links are pre-signed bucket URLs")
	setting(&rate, "rate-limit", "10", "requests per second per key, 0 = no limit")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	r, err := strconv.ParseFloat(rate, 64)
	if err != nil || r < 0 {
		return nil, fmt.Errorf("rate limit %q is not a number >= 0", rate)
	}
	s.rateLimit = r
	if s.presign, err = strconv.ParseBool(presign); err != nil {
		return nil, fmt.Errorf("artifacts presign %q is not 0 or 1", presign)
	}
	if err := checkPublicURL(s.publicURL); err != nil {
		return nil, err
	}
	if s.logFormat != "text" && s.logFormat != "json" {
		return nil, fmt.Errorf("SITEDIAG_LOG_FORMAT: %q is not text or json", s.logFormat)
	}
	return s, nil
}

// checkPublicURL refuses a public URL that artifact links cannot be
// built on: it must be an absolute http or https URL with a host, and
// no query or fragment.
func checkPublicURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("SITEDIAG_PUBLIC_URL: %q is not an absolute http or https URL without query or fragment", raw)
	}
	return nil
}

// clientConfig is the client's Config: its flags, and the environment
// for the client's settings that have no flag.
func (s *settings) clientConfig() (sitediag.Config, error) {
	return sitediag.ConfigFrom(func(name string) string {
		if p, ok := s.client[name]; ok {
			return *p
		}
		return os.Getenv(name)
	})
}

// splitList splits a comma list, dropping spaces and empty items.
func splitList(v string) []string {
	return slices.DeleteFunc(strings.Split(strings.ReplaceAll(v, " ", ""), ","), func(item string) bool { return item == "" })
}

// run serves with settings s until SIGINT or SIGTERM.
func run(s *settings, log *slog.Logger) error {
	cfg, err := s.clientConfig()
	if err != nil {
		return err
	}
	rate := s.rateLimit
	if rate == 0 {
		rate = -1 // 0 means no limit here; httpapi reads negative as none
	}
	var limiter middleware.RateLimiter
	var backends []httpapi.Backend
	if s.redisURL != "" {
		rdb, err := openRedis(s.redisURL)
		if err != nil {
			return err
		}
		defer rdb.Close()
		cfg.BrandCache = redisbrand.New(rdb, redisbrand.Options{})
		if rate > 0 {
			if limiter, err = redislimit.New(rdb, redislimit.Options{Rate: rate, Burst: middleware.RateBurst(rate)}); err != nil {
				return err
			}
		}
		backends = append(backends, redisBackend{rdb})
	}
	client, err := sitediag.New(cfg)
	if err != nil {
		return err
	}
	defer client.Close()

	store, err := openArtifacts(context.Background(), s.artifactsURL, s.dataDir)
	if err != nil {
		return err
	}
	defer store.Close()
	if s.presign && !store.CanSign() {
		return errors.New("SITEDIAG_ARTIFACTS_PRESIGN=1 needs a bucket in SITEDIAG_ARTIFACTS_URL (s3://…), not a directory")
	}

	keys := splitList(s.apiKeys)
	if len(keys) == 0 {
		key, path, err := keptKey(s.dataDir)
		if err != nil {
			return err
		}
		keys = []string{key}
		fmt.Fprintf(os.Stdout, "No SITEDIAG_API_KEYS set; the API key generated for this data directory (kept in %s):\n\n    %s\n\n", path, key)
	}
	handler := httpapi.New(client, httpapi.Options{
		APIKeys:          keys,
		RateLimit:        rate,
		RateLimiter:      limiter,
		PublicURL:        s.publicURL,
		Artifacts:        store,
		PresignArtifacts: s.presign,
		Backends:         backends,
		Logger:           log,
		CORSOrigins:      splitList(s.corsOrigins),
	})

	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/", handler)
	mux.Handle("/ui/", http.StripPrefix("/ui", httpapi.UI()))
	mux.Handle("GET /{$}", http.RedirectHandler("/ui/", http.StatusFound))
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	log.Info("listening", "addr", ln.Addr().String())
	log.Info("report page", "url", pageURL(s.publicURL, ln.Addr()))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	if s.metricsAddr != "" {
		msrv, err := serveMetrics(s.metricsAddr, handler, log, errc)
		if err != nil {
			return err
		}
		defer msrv.Close()
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down; draining in-flight requests")
	drain, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := srv.Shutdown(drain); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// serveMetrics serves the handler's metrics, with the Go runtime's and
// the process's, at /metrics on addr; a serving error goes to errc.
func serveMetrics(addr string, handler *httpapi.Handler, log *slog.Logger, errc chan<- error) (*http.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("SITEDIAG_METRICS_ADDR: %w", err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(handler.Metrics(), collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Info("metrics", "addr", ln.Addr().String())
	go func() { errc <- srv.Serve(ln) }()
	return srv, nil
}

func generateKey() string {
	var b [24]byte
	rand.Read(b[:])
	return "sd_" + base64.RawURLEncoding.EncodeToString(b[:])
}

// keptKey returns the API key kept in dataDir/api-key, generating and
// keeping one (mode 0600) when there is none, so that a restart keeps
// the key an open report page holds. It returns the file's path too.
func keptKey(dataDir string) (key, path string, err error) {
	path = filepath.Join(dataDir, "api-key")
	if b, err := os.ReadFile(path); err == nil {
		if key = strings.TrimSpace(string(b)); key != "" {
			return key, path, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", "", fmt.Errorf("reading the kept API key: %w", err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return "", "", fmt.Errorf("keeping the API key: %w", err)
	}
	key = generateKey()
	if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
		return "", "", fmt.Errorf("keeping the API key: %w", err)
	}
	return key, path, nil
}

// pageURL is the report page's address: under the public URL when there
// is one, else on the listener (a wildcard address read as loopback).
func pageURL(publicURL string, addr net.Addr) string {
	if publicURL != "" {
		return strings.TrimSuffix(publicURL, "/") + "/ui/"
	}
	host := addr.String()
	if ta, ok := addr.(*net.TCPAddr); ok && ta.IP.IsUnspecified() {
		host = net.JoinHostPort("127.0.0.1", strconv.Itoa(ta.Port))
	}
	return "http://" + host + "/ui/"
}
