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

// nameRules says which host names a parser accepts.
type nameRules int

const (
	// hostNames are the names browsers and HTTP clients reach: IDNA
	// lookup rules, so ASCII labels hold letters, digits and hyphens.
	hostNames nameRules = iota
	// dnsNames are any DNS names (RFC 2181 §11) of letters, digits,
	// hyphens and underscores, with IDNA for non-ASCII labels, so that
	// _dmarc.example.com and _sip._tcp.example.com can be looked up.
	dnsNames
)

// ParseURL parses an absolute http or https URL.
func ParseURL(raw string) (*Target, error) { return parseURL(raw, hostNames) }

func parseURL(raw string, rules nameRules) (*Target, error) {
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
	host, addr, err := normaliseHost(u.Hostname(), rules)
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
func ParseHost(raw string) (*Target, error) { return parseHost(raw, hostNames) }

// ParseDomain parses what the DNS tools accept: what ParseHost accepts,
// with a DNS name's rules instead of a host name's, so labels may start
// with or hold underscores (_dmarc.example.com, selector1._domainkey.
// example.com, _sip._tcp.example.com).
func ParseDomain(raw string) (*Target, error) { return parseHost(raw, dnsNames) }

func parseHost(raw string, rules nameRules) (*Target, error) {
	raw = strings.TrimSpace(raw)
	if strings.Contains(raw, "://") {
		return parseURL(raw, rules)
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
	host, addr, err := normaliseHost(hostPart, rules)
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
func normaliseHost(h string, rules nameRules) (string, netip.Addr, error) {
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
	ascii, err := toASCII(h, rules)
	if err != nil {
		return "", netip.Addr{}, err
	}
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

// toASCII returns the lowercase ASCII form of a name under rules.
func toASCII(name string, rules nameRules) (string, error) {
	if rules == hostNames {
		ascii, err := idna.Lookup.ToASCII(name)
		if err != nil {
			return "", invalid("host is not a valid domain name")
		}
		return strings.ToLower(ascii), nil
	}
	labels := strings.Split(name, ".")
	for i, l := range labels {
		if !isASCII(l) {
			ascii, err := idna.Lookup.ToASCII(l)
			if err != nil {
				return "", invalid("host is not a valid domain name")
			}
			labels[i] = strings.ToLower(ascii)
			continue
		}
		l = strings.ToLower(l)
		if i := strings.IndexFunc(l, notDNSNameRune); i >= 0 {
			return "", invalid("host has a character a DNS name cannot have: %q", l[i])
		}
		labels[i] = l
	}
	return strings.Join(labels, "."), nil
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// notDNSNameRune reports whether r is outside the letters, digits,
// hyphen and underscore of a lowercased DNS label.
func notDNSNameRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_')
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
