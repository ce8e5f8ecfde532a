package portscan

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

func TestDefaultRankingTop(t *testing.T) {
	r := DefaultRanking()
	all, err := r.Top(5000)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint16]bool{}
	for _, p := range all {
		if p == 0 || seen[p] {
			t.Fatalf("port %d is zero or repeated in the ranking", p)
		}
		seen[p] = true
	}
	for _, n := range TopSizes() {
		got, err := r.Top(n)
		if err != nil || len(got) != n || !slices.Equal(got, all[:n]) {
			t.Fatalf("Top(%d) = %d ports, %v; want the first %d of the ranking", n, len(got), err, n)
		}
	}
	if !slices.Equal(all[:3], []uint16{80, 443, 22}) {
		t.Errorf("ranking starts %v, want [80 443 22]", all[:3])
	}
	// Past the shipped list, ports follow in port order.
	tail := all[len(wellKnownPorts):]
	if !slices.IsSorted(tail) || tail[0] != 1 {
		t.Errorf("the tail past the list starts %v, want ascending from 1", tail[:5])
	}
	for _, n := range []int{0, 10, 101, 6000} {
		if _, err := r.Top(n); !errors.Is(err, ErrTopSize) {
			t.Errorf("Top(%d) error = %v, want ErrTopSize", n, err)
		}
	}
}

func TestServiceName(t *testing.T) {
	r := DefaultRanking()
	for port, want := range map[uint16]string{22: "ssh", 80: "http", 443: "https", 3306: "mysql", 5432: "postgresql"} {
		if got := r.ServiceName(port); got != want {
			t.Errorf("ServiceName(%d) = %q, want %q", port, got, want)
		}
	}
	if got := r.ServiceName(64999); got != "unknown" {
		t.Errorf("ServiceName(64999) = %q, want unknown", got)
	}
}

// nmap-services lines in nmap's format, with made-up frequencies.
const servicesFixture = `# a comment line
alpha	8080/tcp	0.30	# web
beta	22/tcp	0.50
gamma	53/udp	0.90
delta	9999/tcp	0.30
epsilon	443/sctp	0.80

zeta	7/tcp	0.000000
`

func TestReadNmapServices(t *testing.T) {
	r, err := ReadNmapServices(strings.NewReader(servicesFixture))
	if err != nil {
		t.Fatal(err)
	}
	top, err := r.Top(50)
	if err != nil {
		t.Fatal(err)
	}
	// TCP only, by frequency, ties in port order, then ports 1, 2, … past the ranked ones.
	if want := []uint16{22, 8080, 9999, 7, 1, 2, 3, 4, 5, 6, 8}; !slices.Equal(top[:len(want)], want) {
		t.Errorf("Top(50) starts %v, want %v", top[:len(want)], want)
	}
	if r.ServiceName(8080) != "alpha" || r.ServiceName(53) != "unknown" {
		t.Errorf("names: 8080 %q, 53 %q", r.ServiceName(8080), r.ServiceName(53))
	}
	for _, bad := range []string{"http 80/tcp\n", "http x/tcp 0.1\n", "http 80/tcp high\n", "# only a comment\n"} {
		if _, err := ReadNmapServices(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadNmapServices(%q) accepted", bad)
		}
	}
}

func TestLoadRanking(t *testing.T) {
	r, err := LoadRanking(filepath.Join(t.TempDir(), "absent"))
	if err != nil || r.Source() != DefaultRanking().Source() {
		t.Fatalf("absent file: %v, %v; want the default ranking", r, err)
	}
	path := filepath.Join(t.TempDir(), "nmap-services")
	if err := os.WriteFile(path, []byte(servicesFixture), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err = LoadRanking(path)
	if err != nil || !strings.Contains(r.Source(), path) || r.ServiceName(22) != "beta" {
		t.Fatalf("fixture file: %v, %v", r, err)
	}
	if err := os.WriteFile(path, []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadRanking(path); err == nil {
		t.Error("a malformed file was accepted")
	}
}
