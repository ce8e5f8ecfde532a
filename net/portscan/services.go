package portscan

import (
	"bufio"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/netip"
	"regexp"
	"strings"
	"time"
	"unicode"

	"golang.org/x/sync/errgroup"

	"github.com/sitediag/sitediag/internal/tracing"
	"github.com/sitediag/sitediag/net/netx"
)

// DefaultServiceTimeout bounds the detection of one port.
const DefaultServiceTimeout = 4 * time.Second

// Detection limits: how long to wait for a spontaneous banner, and how
// much of one to keep.
const (
	bannerWait = 1500 * time.Millisecond
	maxBanner  = 256
)

// Service is one open port and what answers on it.
type Service struct {
	Port  uint16 `json:"port"`
	State string `json:"state"`
	// Service is what was learnt about the software on the port.
	Service ServiceInfo `json:"service"`
}

// ServiceInfo describes the software on a port. Name is always set: the
// protocol seen on the wire (ssh, smtp, http, https, …), else the port's
// conventional name, else "unknown".
type ServiceInfo struct {
	Name    string `json:"name"`
	Product string `json:"product,omitempty"`
	Version string `json:"version,omitempty"`
	// TLS is true when the port completed a TLS handshake.
	TLS bool `json:"tls"`
	// Banner is the first line the server sent unprompted, printable
	// characters only, at most 256 bytes.
	Banner string `json:"banner,omitempty"`
}

func detectAll(ctx context.Context, dial netx.DialFunc, addr netip.Addr, open []uint16, concurrency int, timeout time.Duration, names *Ranking) []Service {
	if timeout <= 0 {
		timeout = DefaultServiceTimeout
	}
	services := make([]Service, len(open))
	var g errgroup.Group
	g.SetLimit(concurrency)
	for i, port := range open {
		g.Go(func() error {
			pctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			services[i] = Service{Port: port, State: "open", Service: detect(pctx, dial, addr, port, names.ServiceName(port))}
			return nil
		})
	}
	g.Wait()
	return services
}

// detect reads a banner; when the server says nothing it tries a TLS
// handshake, then an HTTP HEAD (over TLS when the handshake worked).
// name is the port's conventional name, kept when the wire tells nothing.
func detect(ctx context.Context, dial netx.DialFunc, addr netip.Addr, port uint16, name string) ServiceInfo {
	info := ServiceInfo{Name: name}
	if banner := readBanner(ctx, dial, addr, port); banner != "" {
		info.Banner = banner
		fromBanner(&info, banner)
		return info
	}
	if ctx.Err() != nil {
		return info
	}
	info.TLS = tlsHandshake(ctx, dial, addr, port)
	if server, ok := headServer(ctx, dial, addr, port, info.TLS); ok {
		info.Name = "http"
		if info.TLS {
			info.Name = "https"
		}
		info.Product, info.Version = productVersion(server)
	}
	return info
}

// readBanner returns the first line a server sends on its own.
func readBanner(ctx context.Context, dial netx.DialFunc, addr netip.Addr, port uint16) string {
	conn, err := dial(ctx, "tcp", netip.AddrPortFrom(addr, port).String())
	if err != nil {
		return ""
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	conn.SetReadDeadline(time.Now().Add(bannerWait))
	line, _ := bufio.NewReaderSize(conn, maxBanner).ReadSlice('\n')
	return printable(line)
}

func tlsHandshake(ctx context.Context, dial netx.DialFunc, addr netip.Addr, port uint16) bool {
	conn, err := dial(ctx, "tcp", netip.AddrPortFrom(addr, port).String())
	if err != nil {
		return false
	}
	defer conn.Close()
	tconn := tls.Client(conn, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // detection, not trust
	return tracing.Handshake(ctx, tconn) == nil
}

// headServer sends HEAD / and returns the Server header; ok is false when
// no HTTP response came back.
func headServer(ctx context.Context, dial netx.DialFunc, addr netip.Addr, port uint16, overTLS bool) (server string, ok bool) {
	transport := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dial(ctx, network, netip.AddrPortFrom(addr, port).String())
		},
		TLSClientConfig:   netx.TLSConfig(addr.String()),
		DisableKeepAlives: true,
	}
	defer transport.CloseIdleConnections()
	scheme := "http"
	if overTLS {
		scheme = "https"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, scheme+"://"+netip.AddrPortFrom(addr, port).String()+"/", nil)
	if err != nil {
		return "", false
	}
	resp, err := transport.RoundTrip(req)
	if err != nil {
		return "", false
	}
	resp.Body.Close()
	return resp.Header.Get("Server"), true
}

// Banner shapes the detector knows. Each names the service; product and
// version come from the banner's software token when there is one.
var (
	sshBanner     = regexp.MustCompile(`^SSH-[\d.]+-([^_\s-]+)[_-]?(\S*)`)
	softwareToken = regexp.MustCompile(`([A-Za-z][\w.+-]*?)[/ _-]v?(\d+(?:\.\d+)+[\w.+-]*)`)
)

// fromBanner names the service from its greeting.
func fromBanner(info *ServiceInfo, banner string) {
	upper := strings.ToUpper(banner)
	switch {
	case strings.HasPrefix(banner, "SSH-"):
		info.Name = "ssh"
		if m := sshBanner.FindStringSubmatch(banner); m != nil {
			info.Product, info.Version = m[1], m[2]
		}
		return
	case strings.HasPrefix(upper, "220") && strings.Contains(upper, "FTP"):
		info.Name = "ftp"
	case strings.HasPrefix(upper, "220") && strings.Contains(upper, "SMTP"):
		info.Name = "smtp"
	case strings.HasPrefix(banner, "+OK"):
		info.Name = "pop3"
	case strings.HasPrefix(upper, "* OK"):
		info.Name = "imap"
	}
	if m := softwareToken.FindStringSubmatch(banner); m != nil {
		info.Product, info.Version = m[1], m[2]
	}
}

// productVersion splits a Server header such as "nginx/1.25.3 (Debian)".
func productVersion(server string) (product, version string) {
	first, _, _ := strings.Cut(strings.TrimSpace(server), " ")
	product, version, _ = strings.Cut(first, "/")
	return product, version
}

// printable keeps the printable characters of a banner line.
func printable(b []byte) string {
	s := strings.Map(func(r rune) rune {
		if r == unicode.ReplacementChar || !unicode.IsPrint(r) {
			return -1
		}
		return r
	}, string(b))
	return strings.TrimSpace(s)
}
