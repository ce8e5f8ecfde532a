package portscan

import (
	"errors"
	"slices"
	"testing"
)

func TestParsePorts(t *testing.T) {
	tests := []struct {
		in   string
		want []uint16
	}{
		{"80", []uint16{80}},
		{"80,443,1000-1003", []uint16{80, 443, 1000, 1001, 1002, 1003}},
		{" 443 , 80 ,22 - 23 ", []uint16{22, 23, 80, 443}},
		{"5-7,6-8,7", []uint16{5, 6, 7, 8}},
		{"1,65535", []uint16{1, 65535}},
		{"9-9", []uint16{9}},
		{"1-5000", nil}, // exactly the cap; checked by length below
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePorts(tt.in)
			if err != nil {
				t.Fatalf("ParsePorts(%q): %v", tt.in, err)
			}
			if tt.want == nil {
				if len(got) != MaxPorts || got[0] != 1 || got[len(got)-1] != MaxPorts {
					t.Fatalf("got %d ports from %d to %d, want 1-%d", len(got), got[0], got[len(got)-1], MaxPorts)
				}
				return
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParsePortsErrors(t *testing.T) {
	tests := []struct {
		in, token, reason string
	}{
		{"", "", "no ports given"},
		{"  ", "", "no ports given"},
		{"0", "0", "ports are 1-65535"},
		{"80,65536", "65536", "ports are 1-65535"},
		{"80,,443", "", "empty item"},
		{"80,", "", "empty item"},
		{"100-90", "100-90", "range goes down"},
		{"http", "http", "not a port number or a range N-M"},
		{"80-", "80-", "not a port number or a range N-M"},
		{"-80", "-80", "not a port number or a range N-M"},
		{"1-2-3", "1-2-3", "not a port number or a range N-M"},
		{"+80", "+80", "not a port number or a range N-M"},
		{"8 0", "8 0", "not a port number or a range N-M"},
		{"1-5001", "1-5001", "more than 5000 ports in all"},
		{"1-3000,4000-6001", "4000-6001", "more than 5000 ports in all"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParsePorts(tt.in)
			var re *RangeError
			if !errors.As(err, &re) {
				t.Fatalf("ParsePorts(%q) = %v, want a *RangeError", tt.in, err)
			}
			if re.Token != tt.token || re.Reason != tt.reason {
				t.Fatalf("got token %q reason %q, want %q %q", re.Token, re.Reason, tt.token, tt.reason)
			}
		})
	}
}

func TestTop(t *testing.T) {
	all, err := Top(5000)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint16]bool{}
	for _, p := range all {
		if p == 0 || seen[p] {
			t.Fatalf("port %d is zero or repeated in the table", p)
		}
		seen[p] = true
	}
	for _, n := range TopSizes() {
		got, err := Top(n)
		if err != nil || len(got) != n || !slices.Equal(got, all[:n]) {
			t.Fatalf("Top(%d) = %d ports, %v; want the first %d of the table", n, len(got), err, n)
		}
	}
	// nmap's three most often open TCP ports lead the ranking.
	if !slices.Equal(all[:3], []uint16{80, 23, 443}) {
		t.Errorf("table starts %v, want [80 23 443]", all[:3])
	}
	for _, n := range []int{0, 10, 101, 6000} {
		if _, err := Top(n); !errors.Is(err, ErrTopSize) {
			t.Errorf("Top(%d) error = %v, want ErrTopSize", n, err)
		}
	}
}

func TestServiceName(t *testing.T) {
	for port, want := range map[uint16]string{22: "ssh", 80: "http", 443: "https", 3306: "mysql", 1: "tcpmux"} {
		if got := ServiceName(port); got != want {
			t.Errorf("ServiceName(%d) = %q, want %q", port, got, want)
		}
	}
	if got := ServiceName(64999); got != "unknown" {
		t.Errorf("ServiceName(64999) = %q, want unknown", got)
	}
}
