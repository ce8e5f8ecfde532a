package dns_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	mdns "github.com/miekg/dns"

	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/cmdtest"
	"github.com/sitediag/sitediag/internal/dnstest"
	"github.com/sitediag/sitediag/internal/testenv"
)

// bindZone is a zone of the BIND hierarchy: its records, how it is signed,
// and what its parent publishes for it.
type bindZone struct {
	name    string
	records []string
	alg     string // dnssec-keygen algorithm; "" for an unsigned zone
	nsec3   bool
	optOut  bool
	expired bool
	// ds: the parent publishes the zone's DS; wrongDS: the DS of an
	// unrelated key instead.
	ds, wrongDS bool
	// downgradeDS: the parent publishes a SHA-256 DS of an unrelated key
	// and the SHA-1 DS of the zone's own key, which a validator must
	// ignore beside the SHA-256 one (RFC 4509 §3).
	downgradeDS bool
	// tamper names RRSIGs to corrupt after signing: "owner TYPE".
	tamper []string
	// children are signed before the zone and delegated from it.
	children []*bindZone
}

// bindHierarchy is the test hierarchy: a root whose key is the trust
// anchor, test., and children that exercise each verdict.
func bindHierarchy() *bindZone {
	leaf := func(name, alg string, extra ...string) *bindZone {
		return &bindZone{name: name, alg: alg, ds: alg != "", records: append([]string{"@ 300 IN A 192.0.2.1", "www 300 IN A 192.0.2.2"}, extra...)}
	}
	secure := leaf("secure.test.", "ED25519", "*.wild 300 IN A 192.0.2.3", "alias 300 IN CNAME www.other.test.",
		"dangling 300 IN CNAME missing.secure.test.", "away 300 IN CNAME nope.other.test.")
	other := leaf("other.test.", "RSASHA256")
	other.nsec3 = true
	nods := leaf("nods.test.", "ECDSAP256SHA256")
	nods.ds = false
	wrong := leaf("wrongds.test.", "ECDSAP256SHA256")
	wrong.wrongDS = true
	expired := leaf("expired.test.", "ECDSAP256SHA256")
	expired.expired = true
	badsig := leaf("badsig.test.", "ECDSAP256SHA256")
	badsig.tamper = []string{"www.badsig.test. A"}
	sub := leaf("sub.broken.test.", "ECDSAP256SHA256")
	broken := leaf("broken.test.", "ECDSAP256SHA256")
	broken.children = []*bindZone{sub}
	unsigned := leaf("unsigned.test.", "")
	dname := leaf("dname.test.", "ECDSAP256SHA256", "sub 300 IN DNAME secure.test.", "far 300 IN DNAME other.test.",
		"bad 300 IN DNAME secure.test.")
	dname.tamper = []string{"bad.dname.test. DNAME"}
	ed448 := leaf("ed448.test.", "ED448", "bad 300 IN A 192.0.2.9")
	ed448.tamper = []string{"bad.ed448.test. A"}
	downgrade := leaf("downgrade.test.", "ECDSAP256SHA256")
	downgrade.ds, downgrade.downgradeDS = false, true
	test := &bindZone{name: "test.", alg: "ECDSAP256SHA256", nsec3: true, optOut: true, ds: true,
		records:  []string{"ns 300 IN A 127.0.0.1"},
		tamper:   []string{"broken.test. DS"},
		children: []*bindZone{secure, other, nods, wrong, expired, badsig, broken, unsigned, dname, ed448, downgrade}}
	return &bindZone{name: ".", alg: "RSASHA256", ds: true, children: []*bindZone{test}, records: []string{"ns.test. 300 IN A 127.0.0.1"}}
}

// bindCase is a name and the verdict both validators must reach.
type bindCase struct {
	name string
	want dns.Status
	// zone is the zone the report must name.
	zone string
	// failing is the link a bogus verdict must name, and reason words
	// its reason must contain.
	failing, reason string
}

var bindCases = []bindCase{
	{"secure.test", dns.Secure, "secure.test", "", ""},
	{"www.secure.test", dns.Secure, "secure.test", "", ""},
	{"a.wild.secure.test", dns.Secure, "secure.test", "", ""},
	{"alias.secure.test", dns.Secure, "secure.test", "", ""},
	{"nope.secure.test", dns.Secure, "secure.test", "", ""},
	{"www.other.test", dns.Secure, "other.test", "", ""},
	{"nope.other.test", dns.Secure, "other.test", "", ""},
	{"nods.test", dns.Insecure, "nods.test", "", "opt-out"},
	{"www.unsigned.test", dns.Insecure, "unsigned.test", "", ""},
	{"wrongds.test", dns.Bogus, "wrongds.test", "wrongds.test", "no DNSKEY of wrongds.test matches the DS at test"},
	{"expired.test", dns.Bogus, "expired.test", "expired.test", "expired at"},
	{"www.badsig.test", dns.Bogus, "badsig.test", "badsig.test", "the A answer for www.badsig.test: the A signature by key"},
	{"www.sub.broken.test", dns.Bogus, "sub.broken.test", "broken.test", "the DS RRset of broken.test is not validly signed by its parent test"},
	// #27: a DNAME's synthesised CNAME is unsigned by design.
	{"www.sub.dname.test", dns.Secure, "dname.test", "", ""},
	{"www.far.dname.test", dns.Secure, "dname.test", "", ""},
	{"www.bad.dname.test", dns.Bogus, "dname.test", "dname.test", "the A answer for www.bad.dname.test: the DNAME signature by key"},
	// #27: a CNAME to a name that does not exist, in the zone and in
	// another (NSEC3) zone.
	{"dangling.secure.test", dns.Secure, "secure.test", "", ""},
	{"away.secure.test", dns.Secure, "secure.test", "", ""},
	// #27: Ed448.
	{"www.ed448.test", dns.Secure, "ed448.test", "", ""},
	{"bad.ed448.test", dns.Bogus, "ed448.test", "ed448.test", "the A answer for bad.ed448.test: the A signature by key"},
	// #27: beside a SHA-256 DS, a SHA-1 DS is ignored (RFC 4509 §3).
	{"downgrade.test", dns.Bogus, "downgrade.test", "downgrade.test", "no DNSKEY of downgrade.test matches the DS at test"},
}

// needTools skips (fails under SITEDIAG_CI=1) without BIND's tools.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		_, err := exec.LookPath(tool)
		testenv.Need(t, err == nil, tool+" is not installed (apt: bind9, bind9-utils, bind9-dnsutils)")
	}
}

func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s %v: %v\n%s", name, args, err, stderr)
	}
	return string(out)
}

// sign writes z's zone file, signs it with fresh keys (children first) and
// returns the lines its parent publishes for it (NS and DS).
func (z *bindZone) sign(t *testing.T, dir string) []string {
	file := strings.TrimSuffix(z.name, ".")
	if file == "" {
		file = "root"
	}
	lines := []string{"$TTL 300", "$ORIGIN " + z.name,
		"@ IN SOA ns.test. hostmaster.test. 1 7200 3600 1209600 300", "@ IN NS ns.test."}
	lines = append(lines, z.records...)
	for _, c := range z.children {
		lines = append(lines, c.sign(t, dir)...)
	}
	path := filepath.Join(dir, file+".zone")
	delegation := []string{z.name + " 300 IN NS ns.test."}
	if z.alg == "" {
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return delegation
	}
	keydir := filepath.Join(dir, "keys-"+file)
	if err := os.Mkdir(keydir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Keys active since before the expired zone's signatures began.
	since := time.Now().UTC().Add(-60 * 24 * time.Hour).Format("20060102150405")
	ksk := strings.TrimSpace(run(t, dir, "dnssec-keygen", "-q", "-K", keydir, "-P", since, "-A", since, "-a", z.alg, "-f", "KSK", "-n", "ZONE", z.name))
	zsk := strings.TrimSpace(run(t, dir, "dnssec-keygen", "-q", "-K", keydir, "-P", since, "-A", since, "-a", z.alg, "-n", "ZONE", z.name))
	lines = append(lines, "$INCLUDE "+filepath.Join(keydir, ksk+".key"), "$INCLUDE "+filepath.Join(keydir, zsk+".key"))
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-q", "-K", keydir, "-d", keydir, "-o", z.name, "-f", path + ".signed", "-O", "full", "-k", filepath.Join(keydir, ksk)}
	if z.nsec3 {
		args = append(args, "-3", "-", "-H", "0")
	}
	if z.optOut {
		args = append(args, "-A")
	}
	if z.expired {
		now := time.Now().UTC()
		args = append(args, "-s", now.Add(-30*24*time.Hour).Format("20060102150405"), "-e", now.Add(-24*time.Hour).Format("20060102150405"), "-P")
	}
	run(t, dir, "dnssec-signzone", append(args, path, filepath.Join(keydir, zsk))...)
	for _, target := range z.tamper {
		tamperSignature(t, path+".signed", target)
	}
	ds := run(t, dir, "dnssec-dsfromkey", "-2", filepath.Join(keydir, ksk+".key"))
	if z.wrongDS || z.downgradeDS {
		other := strings.TrimSpace(run(t, dir, "dnssec-keygen", "-q", "-K", dir, "-a", z.alg, "-f", "KSK", "-n", "ZONE", z.name))
		wrong := run(t, dir, "dnssec-dsfromkey", "-2", filepath.Join(dir, other+".key"))
		if z.downgradeDS {
			wrong += run(t, dir, "dnssec-dsfromkey", "-1", filepath.Join(keydir, ksk+".key"))
		}
		ds = wrong
	}
	if z.ds || z.wrongDS || z.downgradeDS {
		delegation = append(delegation, strings.TrimSpace(ds))
	}
	return delegation
}

// tamperSignature corrupts the RRSIG over "owner TYPE" in a signed zone
// file written with -O full (one record a line).
func tamperSignature(t *testing.T, path, target string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(target)
	lines := strings.Split(string(b), "\n")
	done := false
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) > 5 && strings.EqualFold(f[0], want[0]) && f[3] == "RRSIG" && f[4] == want[1] {
			sig := []byte(f[len(f)-1])
			// Another base64 letter: flipping a bit could make one that
			// is not ('z' ^ 1 is '{'), and named would refuse the zone.
			if sig[8] == 'A' {
				sig[8] = 'B'
			} else {
				sig[8] = 'A'
			}
			f[len(f)-1] = string(sig)
			lines[i] = strings.Join(f, " ")
			done = true
		}
	}
	if !done {
		t.Fatalf("no RRSIG %s in %s", target, path)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (z *bindZone) all() []*bindZone {
	out := []*bindZone{z}
	for _, c := range z.children {
		out = append(out, c.all()...)
	}
	return out
}

// startBIND signs the hierarchy and serves it from one named on a random
// loopback port, authoritative for every zone and offering recursion, as
// a resolver would. It returns the server's address and the root's DS.
func startBIND(t *testing.T) (string, string) {
	needTools(t, "named", "dnssec-keygen", "dnssec-signzone", "dnssec-dsfromkey")
	dir := t.TempDir()
	root := bindHierarchy()
	rootDS := strings.Join(root.sign(t, dir)[1:], "\n")
	port := freePort(t)
	conf := fmt.Sprintf(`options { directory "%[1]s"; pid-file "%[1]s/named.pid"; session-keyfile "%[1]s/session.key";
  listen-on port %[2]d { 127.0.0.1; }; listen-on-v6 { none; }; recursion yes; allow-recursion { 127.0.0.1; };
  dnssec-validation no; notify no; };
controls { };
`, dir, port)
	for _, z := range root.all() {
		file := strings.TrimSuffix(z.name, ".")
		if file == "" {
			file = "root"
		}
		file += ".zone"
		if z.alg != "" {
			file += ".signed"
		}
		conf += fmt.Sprintf("zone %q { type primary; file %q; };\n", z.name, filepath.Join(dir, file))
	}
	confPath := filepath.Join(dir, "named.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	named := cmdtest.Start(t, "named", "-g", "-n", "1", "-c", confPath)
	addr := net.JoinHostPort("127.0.0.1", fmt.Sprint(port))
	// named loads its zones one by one: wait until every one serves its
	// SOA, or a query to a zone not loaded yet answers SERVFAIL.
	deadline := time.Now().Add(20 * time.Second)
	for _, z := range root.all() {
		for {
			m := new(mdns.Msg)
			m.SetQuestion(mdns.Fqdn(z.name), mdns.TypeSOA)
			resp, err := mdns.Exchange(m, addr)
			if err == nil && resp.Rcode == mdns.RcodeSuccess && len(resp.Answer) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("named did not serve zone %q's SOA at %s (last answer %v, error %v):\n%s", z.name, addr, resp, err, named.Output())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return addr, rootDS
}

// freePort returns a loopback port free for both UDP and TCP just now.
func freePort(t *testing.T) int {
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		u, err := net.ListenPacket("udp", l.Addr().String())
		l.Close()
		if err == nil {
			u.Close()
			return port
		}
	}
	t.Fatal("no free port")
	return 0
}

// delvVerdict runs delv with the same trust anchor and maps its verdict.
func delvVerdict(t *testing.T, addr, anchorFile, name string) dns.Status {
	host, port, _ := net.SplitHostPort(addr)
	out, _ := exec.Command("delv", "@"+host, "-p", port, "-a", anchorFile, "+root=.", name, "A").CombinedOutput()
	s := string(out)
	switch {
	case strings.Contains(s, "fully validated"):
		return dns.Secure
	case strings.Contains(s, "unsigned answer"):
		return dns.Insecure
	case strings.Contains(s, "resolution failed") || strings.Contains(s, "validation failed") || strings.Contains(s, "no valid"):
		return dns.Bogus
	}
	t.Fatalf("delv %s: unrecognised output:\n%s", name, s)
	return ""
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// TestCheckDNSSECAgainstBIND validates names in a hierarchy signed and
// served by BIND (RSASHA256, ECDSAP256SHA256, ED25519; NSEC, NSEC3 with
// opt-out), checks each verdict and the link it names, and compares the
// verdict with delv's on the same server and trust anchor.
func TestCheckDNSSECAgainstBIND(t *testing.T) {
	needTools(t, "delv")
	addr, rootDS := startBIND(t)
	anchor, err := dns.ParseTrustAnchor(rootDS)
	if err != nil {
		t.Fatal(err)
	}
	// delv's form of the same anchor.
	f := strings.Fields(rootDS)
	anchorFile := filepath.Join(t.TempDir(), "anchor.conf")
	delvAnchor := fmt.Sprintf("trust-anchors { \".\" static-ds %s %s %s \"%s\"; };\n", f[3], f[4], f[5], strings.Join(f[6:], ""))
	if err := os.WriteFile(anchorFile, []byte(delvAnchor), 0o644); err != nil {
		t.Fatal(err)
	}
	const runs = 3
	var table strings.Builder
	fmt.Fprintf(&table, "%-22s %-9s %-9s %10s %10s\n", "name", "ours", "delv", "ours p50", "delv p50")
	for _, c := range bindCases {
		t.Run(c.name, func(t *testing.T) {
			var ours, theirs []time.Duration
			var report *dns.DNSSECReport
			var delv dns.Status
			for range runs {
				r := &dns.Resolver{Servers: []string{addr}, TrustAnchor: anchor, Timeout: 2 * time.Second}
				start := time.Now()
				report, err = r.CheckDNSSEC(context.Background(), c.name, time.Now())
				ours = append(ours, time.Since(start))
				if err != nil {
					t.Fatal(err)
				}
				start = time.Now()
				delv = delvVerdict(t, addr, anchorFile, c.name)
				theirs = append(theirs, time.Since(start))
			}
			v := report.Validation
			fmt.Fprintf(&table, "%-22s %-9s %-9s %10s %10s\n", c.name, v.Status, delv, median(ours).Round(time.Microsecond), median(theirs).Round(time.Microsecond))
			if v.Status != c.want || v.Reason == "" {
				t.Errorf("got %s (%s), want %s\nchain: %+v", v.Status, v.Reason, c.want, v.Chain)
			}
			if delv != v.Status {
				t.Errorf("delv says %s, we say %s (%s)", delv, v.Status, v.Reason)
			}
			if !strings.Contains(v.Reason, c.reason) {
				t.Errorf("reason %q, want it to contain %q", v.Reason, c.reason)
			}
			if v.FailingLink != c.failing {
				t.Errorf("failing link %q, want %q (%s)", v.FailingLink, c.failing, v.Reason)
			}
			if len(v.Chain) == 0 || v.Chain[0].Zone != "." {
				t.Errorf("chain %+v does not start at the root", v.Chain)
			}
			if report.Zone != c.zone {
				t.Errorf("zone %q, want %q", report.Zone, c.zone)
			}
			if v.Status == dns.Secure && (!report.IsEnabled || len(report.DNSKEY) == 0) {
				t.Errorf("secure, but isEnabled %v with %d DNSKEY records of %s", report.IsEnabled, len(report.DNSKEY), report.Zone)
			}
			checkFlags(t, report)
		})
	}
	t.Logf("verdicts and median times over %d runs:\n%s", runs, table.String())

	// A CNAME that says other than the DNAME it is synthesised from (a
	// proxy in front of named rewrites it) is not trusted: the DNAME's
	// substitution is followed, as delv does.
	t.Run("synthesised CNAME contradicts its DNAME", func(t *testing.T) {
		proxy := dnstest.Start(t)
		proxy.Handle(func(w mdns.ResponseWriter, req *mdns.Msg) {
			c := &mdns.Client{Net: w.LocalAddr().Network(), Timeout: 5 * time.Second}
			resp, _, err := c.Exchange(req, addr)
			if err != nil {
				return
			}
			for _, rr := range resp.Answer {
				if c, ok := rr.(*mdns.CNAME); ok && strings.EqualFold(c.Hdr.Name, "www.sub.dname.test.") {
					c.Target = "www.other.test."
				}
			}
			w.WriteMsg(resp)
		})
		r := &dns.Resolver{Servers: []string{proxy.Addr}, TrustAnchor: anchor, Timeout: 2 * time.Second}
		report, err := r.CheckDNSSEC(context.Background(), "www.sub.dname.test", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		v := report.Validation
		delv := delvVerdict(t, proxy.Addr, anchorFile, "www.sub.dname.test")
		t.Logf("through the rewriting proxy: ours %s, delv %s", v.Status, delv)
		if v.Status != dns.Secure || delv != dns.Secure {
			t.Errorf("got %s (%s), delv %s, want secure: www.secure.test, where the DNAME leads", v.Status, v.Reason, delv)
		}
		for _, q := range proxy.Queries() {
			if strings.EqualFold(q.Name, "www.other.test.") {
				t.Errorf("asked for %s %s, where only the unsigned CNAME leads", q.Name, mdns.TypeToString[q.Type])
			}
		}
	})

	// #27: every configured server is tried within the deadline.
	t.Run("two silent servers first", func(t *testing.T) {
		r := &dns.Resolver{Servers: []string{silentServer(t), silentServer(t), addr}, TrustAnchor: anchor, Timeout: time.Second}
		report, err := r.CheckDNSSEC(context.Background(), "www.secure.test", time.Now())
		if err != nil {
			t.Fatalf("the third server answers, but: %v", err)
		}
		if report.Validation.Status != dns.Secure {
			t.Errorf("got %s (%s), want secure", report.Validation.Status, report.Validation.Reason)
		}
	})
	t.Run("two silent servers first, deadline shorter than two timeouts", func(t *testing.T) {
		r := &dns.Resolver{Servers: []string{silentServer(t), silentServer(t), addr}, TrustAnchor: anchor, Timeout: 3 * time.Second}
		ctx, cancel := context.WithTimeout(context.Background(), 4500*time.Millisecond)
		defer cancel()
		if _, err := r.CheckDNSSEC(ctx, "www.secure.test", time.Now()); err != nil {
			t.Fatalf("the third server answers within the deadline, but: %v", err)
		}
	})
}

// checkFlags checks the report's check flags as the API shows them:
// set when the check ran, null when it did not (the chain never reached
// the zone, or stopped before the check), and true all the way on a
// secure verdict.
func checkFlags(t *testing.T, report *dns.DNSSECReport) {
	t.Helper()
	b, err := json.Marshal(report.Validation)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Status               dns.Status
		DNSKEYSignatureValid *bool `json:"dnskeySignatureValid"`
		DSMatchesKSK         *bool `json:"dsMatchesKsk"`
		Chain                []struct {
			Zone            string
			Status          dns.Status
			DSFound         bool  `json:"dsFound"`
			DSValidated     *bool `json:"dsValidated"`
			DNSKEYValidated *bool `json:"dnskeyValidated"`
		}
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	own := -1
	for i, l := range v.Chain {
		if l.Zone == report.Zone {
			own = i
		}
		if l.Status == dns.Secure && (!isTrue(l.DSValidated) || !isTrue(l.DNSKEYValidated)) {
			t.Errorf("secure link %s has unset or false checks: %s", l.Zone, b)
		}
		if !l.DSFound && (l.DSValidated != nil || l.DNSKEYValidated != nil) {
			t.Errorf("link %s has no DS but reports checks that need one: %s", l.Zone, b)
		}
		if l.Status == dns.Bogus && l.DSValidated != nil && !*l.DSValidated && l.DNSKEYValidated != nil {
			t.Errorf("link %s: its DS does not validate, so its DNSKEY was not checked, but dnskeyValidated is %v", l.Zone, *l.DNSKEYValidated)
		}
	}
	switch {
	case own < 0 && (v.DNSKEYSignatureValid != nil || v.DSMatchesKSK != nil):
		t.Errorf("the chain never reached %s, but dnskeySignatureValid is %s and dsMatchesKsk %s", report.Zone, show(v.DNSKEYSignatureValid), show(v.DSMatchesKSK))
	case own >= 0 && v.Chain[own].DNSKEYValidated == nil && v.DNSKEYSignatureValid != nil:
		t.Errorf("the DNSKEY of %s was not checked, but dnskeySignatureValid is %s", report.Zone, show(v.DNSKEYSignatureValid))
	case v.Status == dns.Secure && (!isTrue(v.DNSKEYSignatureValid) || !isTrue(v.DSMatchesKSK)):
		t.Errorf("secure, but dnskeySignatureValid is %s and dsMatchesKsk %s", show(v.DNSKEYSignatureValid), show(v.DSMatchesKSK))
	}
}

func isTrue(b *bool) bool { return b != nil && *b }

func show(b *bool) string {
	if b == nil {
		return "unset"
	}
	return fmt.Sprint(*b)
}
