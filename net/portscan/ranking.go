package portscan

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
)

// NmapServicesPath is where Debian's nmap package installs nmap's
// nmap-services file, whose open frequencies LoadRanking reads.
const NmapServicesPath = "/usr/share/nmap/nmap-services"

// MaxPorts caps how many ports one scan may cover.
const MaxPorts = 5000

// topSizes are the sizes of the ranked lists Top serves.
var topSizes = []int{50, 100, 500, 1000, 5000}

// TopSizes returns the sizes of the ranked lists Top serves (a new slice
// on each call).
func TopSizes() []int { return slices.Clone(topSizes) }

// ErrTopSize means Top was asked for a size not in TopSizes.
var ErrTopSize = errors.New("portscan: top ports must be one of 50, 100, 500, 1000, 5000")

// namedPort is one row of a ranking.
type namedPort struct {
	port uint16
	name string
}

// Ranking orders TCP ports from the most to the least likely to be open,
// each with its conventional service name. Build one with LoadRanking,
// ReadNmapServices or DefaultRanking; it is safe for concurrent use.
type Ranking struct {
	ranked []namedPort
	names  map[uint16]string
	source string
}

// DefaultRanking is the ranking this package ships: well-known service
// ports in sitediag's own order (wellknown.go, Apache-2.0), the services
// an internet-facing host most often exposes first.
func DefaultRanking() *Ranking {
	return newRanking(wellKnownPorts, "sitediag well-known ports")
}

// LoadRanking reads nmap's nmap-services at path when the file exists,
// and returns DefaultRanking when it does not. nmap's data is under the
// Nmap Public Source License, so it is read where the operator installed
// it, never shipped.
func LoadRanking(path string) (*Ranking, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultRanking(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("portscan: %w", err)
	}
	defer f.Close()
	r, err := ReadNmapServices(f)
	if err != nil {
		return nil, fmt.Errorf("portscan: %s: %w", path, err)
	}
	r.source = "nmap-services (" + path + ")"
	return r, nil
}

// ReadNmapServices reads a ranking from nmap-services lines ("http
// 80/tcp 0.484143 # comment"): the TCP ports by open frequency, highest
// first, ties in port order. A line that does not parse is an error.
func ReadNmapServices(r io.Reader) (*Ranking, error) {
	type row struct {
		namedPort
		freq float64
	}
	var rows []row
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if len(fields) < 3 {
			return nil, fmt.Errorf("line %d: want name port/proto frequency", n)
		}
		portText, proto, _ := strings.Cut(fields[1], "/")
		port, errPort := strconv.ParseUint(portText, 10, 16)
		freq, errFreq := strconv.ParseFloat(fields[2], 64)
		if errPort != nil || port == 0 || errFreq != nil {
			return nil, fmt.Errorf("line %d: %q is not name port/proto frequency", n, line)
		}
		if proto == "tcp" {
			rows = append(rows, row{namedPort{uint16(port), fields[0]}, freq})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errors.New("no TCP ports")
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		if a.freq != b.freq {
			if a.freq > b.freq {
				return -1
			}
			return 1
		}
		return int(a.port) - int(b.port)
	})
	ranked := make([]namedPort, len(rows))
	for i, r := range rows {
		ranked[i] = r.namedPort
	}
	return newRanking(ranked, "nmap-services"), nil
}

func newRanking(ranked []namedPort, source string) *Ranking {
	r := &Ranking{names: make(map[uint16]string, len(ranked)), source: source}
	for _, p := range ranked {
		if _, dup := r.names[p.port]; dup {
			continue
		}
		r.names[p.port] = p.name
		r.ranked = append(r.ranked, p)
	}
	return r
}

// Source says where the ranking comes from, for people to read.
func (r *Ranking) Source() string { return r.source }

// Top returns the n most likely open TCP ports, most likely first; n must
// be one of TopSizes. Past the ranked ports, the rest follow in port
// order.
func (r *Ranking) Top(n int) ([]uint16, error) {
	if !slices.Contains(topSizes, n) {
		return nil, ErrTopSize
	}
	ports := make([]uint16, 0, n)
	for _, p := range r.ranked {
		if len(ports) == n {
			return ports, nil
		}
		ports = append(ports, p.port)
	}
	for p := 1; len(ports) < n; p++ {
		if _, ranked := r.names[uint16(p)]; !ranked {
			ports = append(ports, uint16(p))
		}
	}
	return ports, nil
}

// ServiceName returns the conventional service name of a TCP port, or
// "unknown" when the ranking does not name it.
func (r *Ranking) ServiceName(port uint16) string {
	if name, ok := r.names[port]; ok {
		return name
	}
	return "unknown"
}
