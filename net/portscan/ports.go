package portscan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

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
