//go:build linux

// Package netnstest builds a small routed network out of Linux network
// namespaces for tests that send real packets: a client, two routers and
// a target in a line, joined by veth pairs, with IPv4 and IPv6 addresses
// from the documentation ranges:
//
//	client 192.0.2.2      ── 192.0.2.1      router1 198.51.100.1 ──
//	       2001:db8:1::2     2001:db8:1::1          2001:db8:2::1
//	       198.51.100.2 router2 203.0.113.1 ── 203.0.113.2 target
//	       2001:db8:2::2        2001:db8:3::1   2001:db8:3::2
//
// The routers forward and send ICMP errors without rate limit. A test
// runs its probe inside the client namespace by re-executing the test
// binary there (Run), and the child hands its result back with Output.
//
// NewPeer builds something smaller: one namespace joined to the test's
// own by a veth pair, another host for a test's service to reach and be
// reached from.
//
// Namespace names carry the test process's PID and a random suffix, and
// every namespace a test creates is deleted when it ends, failed or not;
// those of a test process that was killed before its cleanups ran are
// deleted by the next New. Nothing else on the machine is touched. Needs root and iproute2; the
// test skips without them, or fails when SITEDIAG_CI=1.
package netnstest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/testenv"
)

// Addresses of the topology. Hops as a probe from the client sees them:
// Router1 (the interface facing the client), Router2 (the interface facing
// router1), then the target.
var (
	Client4  = netip.MustParseAddr("192.0.2.2")
	Router14 = netip.MustParseAddr("192.0.2.1")
	Router24 = netip.MustParseAddr("198.51.100.2")
	Target4  = netip.MustParseAddr("203.0.113.2")

	Client6  = netip.MustParseAddr("2001:db8:1::2")
	Router16 = netip.MustParseAddr("2001:db8:1::1")
	Router26 = netip.MustParseAddr("2001:db8:2::2")
	Target6  = netip.MustParseAddr("2001:db8:3::2")
)

// Networks are the topology's ranges. The SSRF policy denies them (they
// are documentation ranges); tests exempt exactly these.
var Networks = []netip.Prefix{
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("2001:db8::/32"),
}

// Environment variables of a child run.
const (
	envChild = "SITEDIAG_NETNS_CHILD"
	envArg   = "SITEDIAG_NETNS_ARG"
	envOut   = "SITEDIAG_NETNS_OUT"
)

// Child reports whether this process is a child started by Run.
func Child() bool { return os.Getenv(envChild) == "1" }

// InChild is the child's side of a test whose parent calls Run: in a
// child it decodes the parent's argument, hands it to fn and passes what
// fn returns to the parent's Run, and reports true (the test has nothing
// more to do); in the parent it reports false.
func InChild[A any](t testing.TB, fn func(arg A) any) bool {
	t.Helper()
	if !Child() {
		return false
	}
	var arg A
	Arg(t, &arg)
	Output(t, fn(arg))
	return true
}

// Arg decodes into v the argument the parent passed to Run. Call it from
// the child.
func Arg(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(os.Getenv(envArg)), v); err != nil {
		t.Fatalf("netnstest: child argument: %v", err)
	}
}

// Output hands v, as JSON, to the parent's Run. Call it once, from the
// child.
func Output(t testing.TB, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("netnstest: %v", err)
	}
	if err := os.WriteFile(os.Getenv(envOut), data, 0o600); err != nil {
		t.Fatalf("netnstest: %v", err)
	}
}

// namePrefix skips t without root or iproute2, deletes what earlier
// test processes left, and returns a fresh prefix for namespace names,
// sdt-<pid>-<suffix>-, and its random suffix.
func namePrefix(t testing.TB) (prefix, suffix string) {
	t.Helper()
	testenv.NeedRoot(t)
	_, err := exec.LookPath("ip")
	testenv.Need(t, err == nil, "needs the ip command (iproute2)")
	sweepStale(t)
	b := make([]byte, 3)
	rand.Read(b)
	suffix = hex.EncodeToString(b)
	return fmt.Sprintf("sdt-%d-%s-", os.Getpid(), suffix), suffix
}

// Topology is a built network; its fields are namespace names.
type Topology struct {
	Client, Router1, Router2, Target string
}

// New builds the topology and deletes it when t ends.
func New(t testing.TB) *Topology {
	t.Helper()
	prefix, _ := namePrefix(t)
	tp := &Topology{Client: prefix + "c", Router1: prefix + "r1", Router2: prefix + "r2", Target: prefix + "t"}
	for _, ns := range []string{tp.Client, tp.Router1, tp.Router2, tp.Target} {
		run(t, "ip", "netns", "add", ns)
		t.Cleanup(func() {
			if out, err := exec.Command("ip", "netns", "del", ns).CombinedOutput(); err != nil {
				t.Errorf("netnstest: deleting %s: %v: %s", ns, err, out)
			}
		})
		// No duplicate address detection, so IPv6 (link-local
		// addresses included) works as soon as a link is up.
		tp.Exec(t, ns, "sysctl", "-q", "-w", "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0")
		tp.ip(t, ns, "link", "set", "lo", "up")
	}
	tp.link(t, tp.Client, "eth0", "192.0.2.2/24", "2001:db8:1::2/64", tp.Router1, "eth0", "192.0.2.1/24", "2001:db8:1::1/64")
	tp.link(t, tp.Router1, "eth1", "198.51.100.1/24", "2001:db8:2::1/64", tp.Router2, "eth0", "198.51.100.2/24", "2001:db8:2::2/64")
	tp.link(t, tp.Router2, "eth1", "203.0.113.1/24", "2001:db8:3::1/64", tp.Target, "eth0", "203.0.113.2/24", "2001:db8:3::2/64")

	tp.route(t, tp.Client, "default", "192.0.2.1", "2001:db8:1::1")
	tp.route(t, tp.Router1, "203.0.113.0/24", "198.51.100.2", "")
	tp.route(t, tp.Router1, "2001:db8:3::/64", "", "2001:db8:2::2")
	tp.route(t, tp.Router2, "192.0.2.0/24", "198.51.100.1", "")
	tp.route(t, tp.Router2, "2001:db8:1::/64", "", "2001:db8:2::1")
	tp.route(t, tp.Target, "default", "203.0.113.1", "2001:db8:3::1")
	for _, r := range []string{tp.Router1, tp.Router2} {
		tp.Exec(t, r, "sysctl", "-q", "-w",
			"net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1",
			"net.ipv4.icmp_ratelimit=0", "net.ipv6.icmp.ratelimit=0")
	}
	tp.waitLinks(t)
	return tp
}

// staleRE matches the namespaces this package names, capturing the PID
// of the test process that made them.
var staleRE = regexp.MustCompile(`^sdt-(\d+)-[0-9a-f]{6}-(c|r1|r2|t|p)$`)

// sweepStale deletes the namespaces that a test process which no longer
// runs left behind: one killed by a signal, or by go test's -timeout
// panic, never ran its cleanups. A namespace of a live process is left
// alone.
func sweepStale(t testing.TB) {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(out), "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		m := staleRE.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		pid, err := strconv.Atoi(m[1])
		if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		if out, err := exec.Command("ip", "netns", "del", name).CombinedOutput(); err != nil {
			t.Logf("netnstest: deleting stale %s: %v: %s", name, err, out)
		}
	}
}

// waitLinks waits until every veth is up with its queueing discipline
// attached: the kernel does that up to a second after the carrier comes
// up, and drops what is sent before.
func (tp *Topology) waitLinks(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, ns := range []string{tp.Client, tp.Router1, tp.Router2, tp.Target} {
		for {
			out := run(t, "ip", "-n", ns, "-o", "link", "show", "type", "veth")
			if !strings.Contains(out, "qdisc noop") && strings.Count(out, "state UP") == strings.Count(out, "\n") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("netnstest: links of %s not ready: %s", ns, out)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// link joins nsA's ifA and nsB's ifB with a veth pair and gives each end
// its IPv4 and IPv6 address.
func (tp *Topology) link(t testing.TB, nsA, ifA, v4A, v6A, nsB, ifB, v4B, v6B string) {
	t.Helper()
	tp.ip(t, nsA, "link", "add", ifA, "type", "veth", "peer", "name", ifB, "netns", nsB)
	for _, end := range [][4]string{{nsA, ifA, v4A, v6A}, {nsB, ifB, v4B, v6B}} {
		ns, ifname := end[0], end[1]
		tp.ip(t, ns, "addr", "add", end[2], "dev", ifname)
		tp.ip(t, ns, "-6", "addr", "add", end[3], "dev", ifname, "nodad")
		tp.ip(t, ns, "link", "set", ifname, "up")
	}
}

func (tp *Topology) route(t testing.TB, ns, dst, via4, via6 string) {
	t.Helper()
	if via4 != "" {
		tp.ip(t, ns, "route", "add", dst, "via", via4)
	}
	if via6 != "" {
		tp.ip(t, ns, "-6", "route", "add", dst, "via", via6)
	}
}

func (tp *Topology) ip(t testing.TB, ns string, args ...string) {
	t.Helper()
	run(t, "ip", append([]string{"-n", ns}, args...)...)
}

// Exec runs a command inside namespace ns and returns its output; a
// failure fails the test.
func (tp *Topology) Exec(t testing.TB, ns string, args ...string) string {
	t.Helper()
	return run(t, "ip", append([]string{"netns", "exec", ns}, args...)...)
}

// Run re-executes the test binary inside the client namespace, running
// the tests that pattern (a -test.run pattern) selects, with arg (as
// JSON) for the child's Arg, and decodes what the child passed to Output
// into out. The child's output is logged; its failure fails t.
func (tp *Topology) Run(t testing.TB, pattern string, arg, out any) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("netnstest: %v", err)
	}
	argJSON, err := json.Marshal(arg)
	if err != nil {
		t.Fatalf("netnstest: %v", err)
	}
	outFile := filepath.Join(t.TempDir(), "child.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ip", "netns", "exec", tp.Client, exe, "-test.run="+pattern, "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envChild+"=1", envArg+"="+string(argJSON), envOut+"="+outFile)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	t.Logf("child in %s:\n%s", tp.Client, strings.TrimSpace(buf.String()))
	if err != nil {
		t.Fatalf("netnstest: child %s failed: %v", pattern, err)
	}
	data, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatalf("netnstest: the child passed no output (did it call Output?): %v", err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("netnstest: child output: %v", err)
	}
}

// DropEchoRequests makes router2 drop every nth ICMP and ICMPv6 echo
// request it forwards towards the target, the first one included: with
// n = 4 and 16 requests, exactly 4 are lost. Needs nft.
func (tp *Topology) DropEchoRequests(t testing.TB, n int) {
	t.Helper()
	tp.Nft(t, tp.Router2, fmt.Sprintf(`table inet sdt {
	chain drops {
		type filter hook forward priority 0; policy accept;
		icmp type echo-request numgen inc mod %[1]d == 0 drop
		icmpv6 type echo-request numgen inc mod %[1]d == 0 drop
	}
}`, n))
}

// CountArrivals counts, in the target namespace, every packet that comes
// from the client, and returns a function that reads the count. Needs
// nft.
func (tp *Topology) CountArrivals(t testing.TB) func(t testing.TB) int {
	t.Helper()
	tp.Nft(t, tp.Target, fmt.Sprintf(`table inet sdt {
	chain arrivals {
		type filter hook prerouting priority -300; policy accept;
		ip saddr %s counter
		ip6 saddr %s counter
	}
}`, Client4, Client6))
	return func(t testing.TB) int {
		t.Helper()
		out := tp.Exec(t, tp.Target, "nft", "list", "chain", "inet", "sdt", "arrivals")
		total := 0
		for _, m := range counterRE.FindAllStringSubmatch(out, -1) {
			n, _ := strconv.Atoi(m[1])
			total += n
		}
		return total
	}
}

var counterRE = regexp.MustCompile(`counter packets (\d+)`)

// Nft loads an nftables ruleset into namespace ns. Needs nft.
func (tp *Topology) Nft(t testing.TB, ns, ruleset string) {
	t.Helper()
	_, err := exec.LookPath("nft")
	testenv.Need(t, err == nil, "needs the nft command (nftables)")
	cmd := exec.Command("ip", "netns", "exec", ns, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(ruleset)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("netnstest: nft in %s: %v: %s", ns, err, out)
	}
}

func run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("netnstest: %s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
