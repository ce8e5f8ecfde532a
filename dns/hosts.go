package dns

import (
	"bufio"
	"bytes"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// SystemHostsFile is the hosts file a Resolver reads when HostsFile is
// empty.
const SystemHostsFile = "/etc/hosts"

// hostsFile is a hosts file's name-to-addresses table, read again when the
// file's modification time or size changes.
type hostsFile struct {
	mu      sync.Mutex
	path    string
	modTime time.Time
	size    int64
	read    bool
	names   map[string][]netip.Addr
}

// lookup returns the addresses the file lists for host (any letter case,
// with or without the trailing dot), in the file's order; nil when it
// lists none or cannot be read.
func (h *hostsFile) lookup(path, host string) []netip.Addr {
	// Stat outside the lock: concurrent lookups wait for one another
	// only when the file must be read.
	fi, err := os.Stat(path)
	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil {
		h.names, h.read = nil, false
		return nil
	}
	if !h.read || path != h.path || !fi.ModTime().Equal(h.modTime) || fi.Size() != h.size {
		data, err := os.ReadFile(path)
		if err != nil {
			h.names, h.read = nil, false
			return nil
		}
		h.names, h.path, h.modTime, h.size, h.read = parseHosts(data), path, fi.ModTime(), fi.Size(), true
	}
	return h.names[hostsKey(host)]
}

// parseHosts reads hosts(5) lines, "address name [alias...]", with
// comments from '#'; lines whose address does not parse are skipped, as
// the system resolver skips them.
func parseHosts(data []byte) map[string][]netip.Addr {
	names := map[string][]netip.Addr{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		addr, err := netip.ParseAddr(fields[0])
		if err != nil {
			continue
		}
		for _, name := range fields[1:] {
			key := hostsKey(name)
			if !slices.Contains(names[key], addr) {
				names[key] = append(names[key], addr)
			}
		}
	}
	return names
}

// hostsKey is the table's key of a name: lower case, no trailing dot.
func hostsKey(name string) string { return strings.ToLower(strings.TrimSuffix(name, ".")) }
