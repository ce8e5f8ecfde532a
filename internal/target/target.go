// Package target parses and normalises the targets callers name: full
// http/https URLs, and for the host-level tools bare hosts and IP literals.
//
// Parsing fails closed. Userinfo, schemes other than http and https, control
// characters, over-long names and hosts that look numeric but are not strict
// IPv4 or IPv6 literals (2130706433, 0x7f.1, 127.1, 0177.0.0.1) are refused,
// because resolvers and browsers disagree on what such hosts mean.
package target

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// Limits from RFC 1035.
const (
	maxHostLen  = 253
	maxLabelLen = 63
)

// ErrInvalid is wrapped by every parse error, so callers can branch with
// errors.Is without matching text.
var ErrInvalid = errors.New("target: invalid")

// Error explains why a target was refused. Reason is safe to show to the
// caller that sent the target.
type Error struct {
	Reason string
}

func (e *Error) Error() string { return "target: " + e.Reason }

// Unwrap returns ErrInvalid.
func (e *Error) Unwrap() error { return ErrInvalid }

func invalid(format string, args ...any) error {
	return &Error{Reason: fmt.Sprintf(format, args...)}
}

// Target is a parsed, normalised target.
type Target struct {
	// Scheme is "http" or "https"; empty for a bare host.
	Scheme string
	// Host is the lowercase ASCII (punycode) name or the canonical IP
	// literal, without brackets, port or trailing dot.
	Host string
	// Addr is the IP when Host is an IP literal, else the zero Addr.
	Addr netip.Addr
	// Port is the explicit port, or the scheme's default; 0 for a bare host
	// given without one.
	Port uint16
	// URL is the URL rebuilt from the parts above; nil for a bare host.
	// Every tool uses this form, never the raw input.
	URL *url.URL
}

// IsIP reports whether the host is an IP literal.
func (t *Target) IsIP() bool { return t.Addr.IsValid() }

// HostPort returns host:port for dialling, with brackets for IPv6.
func (t *Target) HostPort() string {
	return net.JoinHostPort(t.Host, strconv.Itoa(int(t.Port)))
}

// Display is the host-only form used in meta.url: the host, with ":port"
// only when the port is not the scheme's default.
func (t *Target) Display() string {
	if t.Port == 0 || t.Port == defaultPort(t.Scheme) {
		if t.Addr.Is6() {
			return "[" + t.Host + "]"
		}
		return t.Host
	}
	return t.HostPort()
}

// String returns the rebuilt URL, or Display for a bare host.
func (t *Target) String() string {
	if t.URL != nil {
		return t.URL.String()
	}
	return t.Display()
}

func defaultPort(scheme string) uint16 {
	switch scheme {
	case "http":
		return 80
	case "https":
		return 443
	}
	return 0
}

// ParseURL parses an absolute http or https URL.
func ParseURL(raw string) (*Target, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, invalid("url is empty")
	}
	if len(raw) > 8192 {
		return nil, invalid("url is longer than 8192 bytes")
	}
	if i := strings.IndexFunc(raw, isControl); i >= 0 {
		return nil, invalid("url contains a control character")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, invalid("url does not parse")
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return nil, invalid("url must start with http:// or https://")
	}
	if u.Opaque != "" {
		return nil, invalid("url must start with http:// or https://")
	}
	if u.User != nil {
		return nil, invalid("url must not contain user information")
	}
	host, addr, err := normaliseHost(u.Hostname())
	if err != nil {
		return nil, err
	}
	port := defaultPort(scheme)
	if p := u.Port(); p != "" {
		if port, err = parsePort(p); err != nil {
			return nil, err
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return nil, invalid("url has an empty port")
	}
	t := &Target{Scheme: scheme, Host: host, Addr: addr, Port: port}
	rebuilt := &url.URL{
		Scheme:   scheme,
		Host:     t.Display(),
		Path:     u.Path,
		RawPath:  u.RawPath,
		RawQuery: u.RawQuery,
	}
	if rebuilt.Path == "" {
		rebuilt.Path = "/"
	}
	t.URL = rebuilt
	return t, nil
}

// ParseHost parses what the host-level tools accept: an http or https URL,
// a bare host name, an IP literal (IPv6 with or without brackets), or a
// host:port.
func ParseHost(raw string) (*Target, error) {
	raw = strings.TrimSpace(raw)
	if strings.Contains(raw, "://") {
		return ParseURL(raw)
	}
	if raw == "" {
		return nil, invalid("url is empty")
	}
	if strings.IndexFunc(raw, isControl) >= 0 {
		return nil, invalid("url contains a control character")
	}
	if strings.ContainsAny(raw, "/?#@\\ ") {
		return nil, invalid("host contains a character a host cannot have")
	}
	hostPart, port := raw, uint16(0)
	if _, err := netip.ParseAddr(strings.Trim(raw, "[]")); err == nil {
		hostPart = strings.Trim(raw, "[]")
	} else if h, p, err := net.SplitHostPort(raw); err == nil {
		if port, err = parsePort(p); err != nil {
			return nil, err
		}
		hostPart = h
	}
	host, addr, err := normaliseHost(hostPart)
	if err != nil {
		return nil, err
	}
	return &Target{Host: host, Addr: addr, Port: port}, nil
}

func parsePort(p string) (uint16, error) {
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil || n == 0 {
		return 0, invalid("port %q is not in 1-65535", p)
	}
	return uint16(n), nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// normaliseHost returns the canonical host and, for IP literals, the address.
func normaliseHost(h string) (string, netip.Addr, error) {
	if h == "" {
		return "", netip.Addr{}, invalid("url has no host")
	}
	if addr, err := netip.ParseAddr(h); err == nil {
		if addr.Zone() != "" {
			return "", netip.Addr{}, invalid("IPv6 zones are not accepted")
		}
		return addr.String(), addr, nil
	}
	if strings.Contains(h, ":") {
		return "", netip.Addr{}, invalid("host is not a valid IP literal")
	}
	h = strings.TrimSuffix(h, ".")
	ascii, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return "", netip.Addr{}, invalid("host is not a valid domain name")
	}
	ascii = strings.ToLower(ascii)
	if ascii == "" {
		return "", netip.Addr{}, invalid("url has no host")
	}
	if len(ascii) > maxHostLen {
		return "", netip.Addr{}, invalid("host is longer than %d bytes", maxHostLen)
	}
	labels := strings.Split(ascii, ".")
	for _, l := range labels {
		if l == "" {
			return "", netip.Addr{}, invalid("host has an empty label")
		}
		if len(l) > maxLabelLen {
			return "", netip.Addr{}, invalid("host has a label longer than %d bytes", maxLabelLen)
		}
	}
	if looksNumeric(labels[len(labels)-1]) {
		return "", netip.Addr{}, invalid("host looks like an IP address but is not a strict IPv4 or IPv6 literal")
	}
	return ascii, netip.Addr{}, nil
}

// looksNumeric reports whether a last label would make resolvers or
// browsers read the host as a number: all digits, or hexadecimal with 0x.
func looksNumeric(label string) bool {
	if strings.HasPrefix(label, "0x") {
		return true
	}
	for _, r := range label {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
