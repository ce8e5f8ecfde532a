package portscan

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

//go:generate go run ./testdata/gentop -in /usr/share/nmap/nmap-services -out topports.go

// MaxPorts caps how many ports one scan may cover.
const MaxPorts = 5000

// topSizes are the sizes of the ranked lists Top serves.
var topSizes = []int{50, 100, 500, 1000, 5000}

// TopSizes returns the sizes of the ranked lists Top serves (a new slice
// on each call).
func TopSizes() []int { return slices.Clone(topSizes) }

// ErrTopSize means Top was asked for a size not in TopSizes.
var ErrTopSize = errors.New("portscan: top ports must be one of 50, 100, 500, 1000, 5000")

// namedPort is one row of the ranked table.
type namedPort struct {
	port uint16
	name string
}

// Top returns the n most often open TCP ports, most frequent first; n must
// be one of TopSizes. The ranking comes from nmap's nmap-services
// frequency data (see topports.go).
func Top(n int) ([]uint16, error) {
	if !slices.Contains(topSizes, n) {
		return nil, ErrTopSize
	}
	ports := make([]uint16, n)
	for i := range n {
		ports[i] = topPorts[i].port
	}
	return ports, nil
}

// ServiceName returns the conventional service name of a TCP port (nmap's
// name), or "unknown" when the ranked table does not have it.
func ServiceName(port uint16) string {
	for _, p := range topPorts {
		if p.port == port {
			return p.name
		}
	}
	return "unknown"
}

// RangeError says which token of a port list is wrong and why.
type RangeError struct {
	// Token is the offending comma-separated item, as given (trimmed).
	Token string
	// Reason says what is wrong with it.
	Reason string
}

func (e *RangeError) Error() string {
	if e.Token == "" {
		return "portscan: " + e.Reason
	}
	return fmt.Sprintf("portscan: %q: %s", e.Token, e.Reason)
}

// ParsePorts parses a list such as "80,443,1000-1010": comma-separated
// ports and ascending inclusive ranges, each 1-65535, spaces allowed
// around items and dashes. Overlaps are merged. The result is ascending
// and at most MaxPorts long; any fault is a *RangeError naming the token.
func ParsePorts(list string) ([]uint16, error) {
	if strings.TrimSpace(list) == "" {
		return nil, &RangeError{Reason: "no ports given"}
	}
	seen := make(map[uint16]bool)
	for tok := range strings.SplitSeq(list, ",") {
		tok = strings.TrimSpace(tok)
		if tok == "" {
			return nil, &RangeError{Token: tok, Reason: "empty item"}
		}
		lo, hi, err := parseItem(tok)
		if err != nil {
			return nil, err
		}
		for p := lo; p <= hi; p++ {
			seen[uint16(p)] = true
			if len(seen) > MaxPorts {
				return nil, &RangeError{Token: tok, Reason: fmt.Sprintf("more than %d ports in all", MaxPorts)}
			}
		}
	}
	ports := make([]uint16, 0, len(seen))
	for p := range seen {
		ports = append(ports, p)
	}
	slices.Sort(ports)
	return ports, nil
}

// parseItem parses "N" or "N-M".
func parseItem(tok string) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(tok, "-")
	if lo, err = parsePort(tok, a); err != nil {
		return 0, 0, err
	}
	if !isRange {
		return lo, lo, nil
	}
	if hi, err = parsePort(tok, b); err != nil {
		return 0, 0, err
	}
	if hi < lo {
		return 0, 0, &RangeError{Token: tok, Reason: "range goes down"}
	}
	return lo, hi, nil
}

func parsePort(tok, s string) (int, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.Atoi(s)
	if err != nil || strings.ContainsAny(s, "+-") {
		return 0, &RangeError{Token: tok, Reason: "not a port number or a range N-M"}
	}
	if n < 1 || n > 65535 {
		return 0, &RangeError{Token: tok, Reason: "ports are 1-65535"}
	}
	return n, nil
}
