package tls

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/cmdtest"
	"github.com/sitediag/sitediag/internal/porttest"
	"github.com/sitediag/sitediag/internal/testenv"
)

// Tests against real TLS servers: OpenSSL's s_server and GnuTLS's
// gnutls-serv, started by the test on a loopback port. Beside each
// verdict of ours stands the peer's: what `openssl s_client` (a real
// verifier), sslscan or testssl.sh say about the same configuration
// (bench/tlsscan.sh prints those live, side by side).

// needTool finds name on PATH, or skips (fails in CI).
func needTool(t *testing.T, name, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	testenv.Need(t, err == nil, name+" is not installed (apt package "+pkg+")")
	return path
}

// serverArgs returns the command line of a server listening on port.
type serverArgs func(port int) []string

// startOnFreePort runs server on a free port until the test ends, waits
// until the port accepts connections, and returns its address.
func startOnFreePort(t *testing.T, server serverArgs) string {
	t.Helper()
	port := int(porttest.Closed(t))
	args := server(port)
	program := cmdtest.Start(t, args[0], args[1:]...)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
	}
	t.Fatalf("%s did not listen on %s in 10 s: %s", args[0], addr, program.Output())
	return ""
}

// pkiFiles are PEM files of a root → intermediate → leaf hierarchy.
type pkiFiles struct {
	dir                    string
	root, inter, leaf, key string
	rootPool               *x509.CertPool
}

// validPKI is writePKI's hierarchy valid at testNow: the leaf from a
// month before to six months after, the intermediate from a year before.
func validPKI(t *testing.T) pkiFiles {
	t.Helper()
	return writePKI(t, testNow.AddDate(0, -1, 0), testNow.AddDate(0, 6, 0), testNow.AddDate(-1, 0, 0))
}

// writePKI issues a hierarchy for "real.test": the leaf valid over
// [leafFrom, leafTo], the intermediate from interFrom for five years.
func writePKI(t *testing.T, leafFrom, leafTo, interFrom time.Time) pkiFiles {
	t.Helper()
	dir := t.TempDir()
	rootKey := fixtureKey(t, false)
	root := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Real Root"},
		NotBefore: testNow.AddDate(-5, 0, 0), NotAfter: testNow.AddDate(10, 0, 0),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	rootDER := mustCert(t, root, root, rootKey.Public(), rootKey)
	rootCert, _ := x509.ParseCertificate(rootDER)
	interKey := fixtureKey(t, false)
	inter := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "Real Intermediate"},
		NotBefore: interFrom, NotAfter: interFrom.AddDate(5, 0, 0),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	interDER := mustCert(t, inter, rootCert, interKey.Public(), rootKey)
	interCert, _ := x509.ParseCertificate(interDER)
	leafKey := fixtureKey(t, true)
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "real.test"}, DNSNames: []string{"real.test"},
		NotBefore: leafFrom, NotAfter: leafTo,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER := mustCert(t, leaf, interCert, leafKey.Public(), interKey)
	keyDER, err := x509.MarshalPKCS8PrivateKey(leafKey)
	if err != nil {
		t.Fatal(err)
	}
	f := pkiFiles{dir: dir, root: filepath.Join(dir, "root.pem"), inter: filepath.Join(dir, "inter.pem"),
		leaf: filepath.Join(dir, "leaf.pem"), key: filepath.Join(dir, "key.pem"), rootPool: x509.NewCertPool()}
	f.rootPool.AddCert(rootCert)
	writePEM(t, f.root, "CERTIFICATE", rootDER)
	writePEM(t, f.inter, "CERTIFICATE", interDER)
	writePEM(t, f.leaf, "CERTIFICATE", leafDER)
	writePEM(t, f.key, "PRIVATE KEY", keyDER)
	return f
}

// scan starts server on a free port and scans it as real.test, trusting
// p's root.
func (p pkiFiles) scan(t *testing.T, server serverArgs) *Result {
	t.Helper()
	return mustScan(t, startOnFreePort(t, server), "real.test", p.rootPool)
}

// realServers start OpenSSL's s_server and GnuTLS's gnutls-serv on
// validPKI's hierarchy.
type realServers struct {
	pkiFiles
	openssl, gnutls string
}

// needOpenSSL finds openssl, or skips (fails in CI), and writes the
// hierarchy it serves; gnutls is left empty.
func needOpenSSL(t *testing.T) realServers {
	t.Helper()
	return realServers{openssl: needTool(t, "openssl", "openssl"), pkiFiles: validPKI(t)}
}

// needRealServers is needOpenSSL that finds gnutls-serv too.
func needRealServers(t *testing.T) realServers {
	t.Helper()
	s := needOpenSSL(t)
	s.gnutls = needTool(t, "gnutls-serv", "gnutls-bin")
	return s
}

// sServerWith is an s_server answering HTTP quietly with args alone, its
// certificate and key among them.
func (s realServers) sServerWith(args ...string) serverArgs {
	return func(port int) []string {
		return append([]string{s.openssl, "s_server", "-accept", "127.0.0.1:" + strconv.Itoa(port), "-www", "-quiet"}, args...)
	}
}

// sServerChain is an s_server serving the leaf and the certificates of
// the file chain ("": the leaf alone), with args added.
func (s realServers) sServerChain(chain string, args ...string) serverArgs {
	own := []string{"-cert", s.leaf, "-key", s.key}
	if chain != "" {
		own = append(own, "-cert_chain", chain)
	}
	return s.sServerWith(append(own, args...)...)
}

// sServer is an s_server serving the leaf and intermediate, with args
// added.
func (s realServers) sServer(args ...string) serverArgs { return s.sServerChain(s.inter, args...) }

// startSServer starts sServer's s_server, with args added, on a free
// port until the test ends, and returns its address.
func (s realServers) startSServer(t *testing.T, args ...string) string {
	t.Helper()
	return startOnFreePort(t, s.sServer(args...))
}

// gnutlsServ is a gnutls-serv serving the leaf alone (no intermediate),
// with args added.
func (s realServers) gnutlsServ(args ...string) serverArgs {
	return func(port int) []string {
		return append([]string{s.gnutls, "--port", strconv.Itoa(port), "--x509certfile", s.leaf, "--x509keyfile", s.key, "--quiet"}, args...)
	}
}

func mustCert(t *testing.T, tmpl, parent *x509.Certificate, pub, priv any) []byte {
	t.Helper()
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, priv)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// opensslVerdict is what `openssl s_client` says of the chain at
// testNow: its verify return code line.
func opensslVerdict(t *testing.T, addr string, f pkiFiles) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "openssl", "s_client", "-connect", addr, "-servername", "real.test",
		"-CAfile", f.root, "-attime", strconv.FormatInt(testNow.Unix(), 10))
	cmd.Stdin = bytes.NewReader(nil)
	out, _ := cmd.CombinedOutput()
	m := regexp.MustCompile(`Verify return code: (\d+ \([^)]*\))`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("openssl s_client printed no verify code:\n%s", out)
	}
	return string(m[1])
}

// TestRealChainCompleteness: the chain as a verifier builds it from
// what s_server sends, beside openssl s_client's verdict.
func TestRealChainCompleteness(t *testing.T) {
	openssl := needTool(t, "openssl", "openssl")
	month := 30 * 24 * time.Hour
	tests := []struct {
		name           string
		leafFrom       time.Time
		leafTo         time.Time
		interFrom      time.Time
		sendRoot       bool // send the root in place of the intermediate
		wantComplete   bool
		wantError      string // authorizationError, "" when trusted
		peerVerifyCode string // openssl s_client's verdict
	}{
		{"leaf and intermediate", testNow.Add(-month), testNow.Add(6 * month), testNow.AddDate(-1, 0, 0), false, true, "", "0 (ok)"},
		{"leaf and root without the intermediate", testNow.Add(-month), testNow.Add(6 * month), testNow.AddDate(-1, 0, 0), true, false,
			"UNABLE_TO_VERIFY_LEAF_SIGNATURE", "21 (unable to verify the first certificate)"},
		{"leaf issued before its intermediate", testNow.Add(-month), testNow.Add(6 * month), testNow.Add(-month / 2), false, true, "", "0 (ok)"},
		{"expired leaf with its intermediate", testNow.AddDate(-1, 0, 0), testNow.Add(-month), testNow.AddDate(-2, 0, 0), false, true,
			"CERT_HAS_EXPIRED", "10 (certificate has expired)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := realServers{pkiFiles: writePKI(t, tt.leafFrom, tt.leafTo, tt.interFrom), openssl: openssl}
			chainFile := f.inter
			if tt.sendRoot {
				chainFile = f.root
			}
			addr := startOnFreePort(t, f.sServerChain(chainFile))
			res := mustScan(t, addr, "real.test", f.rootPool)
			c := res.Certificate
			gotErr := ""
			if c.AuthorizationError != nil {
				gotErr = *c.AuthorizationError
			}
			peer := opensslVerdict(t, addr, f.pkiFiles)
			t.Logf("ours: complete %v, trusted %v, %q; openssl s_client: %s", c.Chain.Complete, c.Trusted, gotErr, peer)
			if c.Chain.Complete != tt.wantComplete || gotErr != tt.wantError || c.Trusted != (tt.wantError == "") || c.Chain.Length != 2 {
				t.Errorf("got complete %v, error %q, trusted %v, length %d; want complete %v, error %q",
					c.Chain.Complete, gotErr, c.Trusted, c.Chain.Length, tt.wantComplete, tt.wantError)
			}
			if peer != tt.peerVerifyCode {
				t.Errorf("openssl s_client: got %s, want %s (the peer's verdict this table records)", peer, tt.peerVerifyCode)
			}
		})
	}
}

// oakleyGroup2 writes RFC 2409's 1024-bit prime as DH parameters.
func oakleyGroup2(t *testing.T, dir string) string {
	t.Helper()
	p, _ := new(big.Int).SetString(commonPrimes[0].hex, 16)
	der, err := asn1.Marshal(struct{ P, G *big.Int }{p, big.NewInt(2)})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "dh1024.pem")
	writePEM(t, path, "DH PARAMETERS", der)
	return path
}

// TestRealKeyExchangeGroups: DHE sizes with the common-prime flag and
// Logjam as testssl judges it, ECDHE curves by their IANA names, and
// forwardSecrecy on a DHE-only server crypto/tls cannot handshake with.
func TestRealKeyExchangeGroups(t *testing.T) {
	f := needRealServers(t)
	tests := []struct {
		name     string
		server   func(port int) []string
		protocol func(*Result) ProtocolSuites
		want     []string // keyExchange as "name/bits/commonPrime"
		logjam   bool
		fs       string // forwardSecrecy "type name size"
		peer     string // what testssl/sslscan say of the same server
	}{
		{
			name: "openssl DHE-only with Oakley group 2",
			server: f.sServer("-dhparam", oakleyGroup2(t, f.dir), "-no_tls1_3",
				"-cipher", "DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:@SECLEVEL=0"),
			protocol: func(r *Result) ProtocolSuites { return r.CipherSuites.TLS12 },
			want:     []string{"DH/1024/RFC 2409 Oakley group 2"},
			logjam:   true,
			fs:       "DH DH 1024",
			peer:     "testssl: LOGJAM VULNERABLE, common prime with 1024 bits (RFC2409/Oakley Group 2); sslscan: DHE 1024 bits",
		},
		{
			name:     "gnutls P-384 only, ffdhe3072",
			server:   f.gnutlsServ("--priority", "NORMAL:-VERS-TLS1.3:-CURVE-ALL:+CURVE-SECP384R1:+GROUP-FFDHE3072:+DHE-RSA"),
			protocol: func(r *Result) ProtocolSuites { return r.CipherSuites.TLS12 },
			want:     []string{"ffdhe3072/3072/RFC 7919 ffdhe3072", "P-384/384/"}, // gnutls prefers its DHE suites
			fs:       "ECDH P-384 384",
			peer:     "sslscan: Curve P-384 (and DHE 3072 bits); testssl: LOGJAM not vulnerable",
		},
		{
			name:     "openssl TLS 1.3 with X25519",
			server:   f.sServerChain("", "-tls1_3", "-groups", "X25519"),
			protocol: func(r *Result) ProtocolSuites { return r.CipherSuites.TLS13 },
			want:     []string{"X25519/253/"},
			fs:       "ECDH X25519 253",
			peer:     "sslscan: TLSv1.3 x25519; openssl s_client: Server Temp Key: X25519, 253 bits",
		},
		{
			name:     "openssl TLS 1.3 groups P-384, X25519, ffdhe2048",
			server:   f.sServerChain("", "-tls1_3", "-groups", "P-384:X25519:ffdhe2048"),
			protocol: func(r *Result) ProtocolSuites { return r.CipherSuites.TLS13 },
			// the key share wins first; then, without it, the client's order
			want: []string{"X25519/253/", "P-384/384/", "ffdhe2048/2048/"},
			fs:   "ECDH X25519 253",
			peer: "sslscan: TLSv1.3 groups secp384r1, x25519, ffdhe2048",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := f.scan(t, tt.server)
			var got []string
			for _, g := range tt.protocol(res).KeyExchange {
				cp := ""
				if g.CommonPrime != nil {
					cp = *g.CommonPrime
				}
				got = append(got, fmt.Sprintf("%s/%d/%s", g.Name, g.Bits, cp))
			}
			fs := res.Certificate.ForwardSecrecy
			gotFS := "none"
			if fs.EphemeralKeyType != nil && fs.EphemeralKeyName != nil && fs.EphemeralKeySize != nil {
				gotFS = fmt.Sprintf("%s %s %d", *fs.EphemeralKeyType, *fs.EphemeralKeyName, *fs.EphemeralKeySize)
			}
			t.Logf("ours: keyExchange %v, logjam %v %v, forwardSecrecy %s; peer: %s",
				got, res.Vulnerabilities.Logjam.Found(), res.Vulnerabilities.Logjam.Evidence, gotFS, tt.peer)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("keyExchange: got %v, want %v", got, tt.want)
			}
			if res.Vulnerabilities.Logjam.Found() != tt.logjam {
				t.Errorf("logjam: got %+v, want vulnerable %v", res.Vulnerabilities.Logjam, tt.logjam)
			}
			if gotFS != tt.fs {
				t.Errorf("forwardSecrecy: got %s, want %s", gotFS, tt.fs)
			}
		})
	}
}

// TestRealPreference: the three states of the server's order, on
// s_server with one suite, two in the client's order, two in its own
// (-serverpref). sslscan reports "Server preferred order: n/a" for one
// suite; testssl "Has server cipher order? no (NOT ok)" / "yes (OK)".
func TestRealPreference(t *testing.T) {
	f := needOpenSSL(t)
	tests := []struct {
		name string
		args []string
		want string
		peer string
	}{
		{"one suite", []string{"-cipher", "ECDHE-RSA-AES128-GCM-SHA256"}, PreferenceUnknown, "testssl: no cipher order to test with one cipher"},
		{"client order", []string{"-cipher", "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384"}, PreferenceClient, "testssl: Has server cipher order? no"},
		{"server order", []string{"-cipher", "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384", "-serverpref"}, PreferenceServer, "testssl: Has server cipher order? yes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := f.scan(t, f.sServerChain("", append([]string{"-no_tls1_3", "-no_tls1_1", "-no_tls1"}, tt.args...)...))
			got := res.CipherSuites.TLS12
			t.Logf("ours: preference %s (serverPreference %v, %d suites); peer: %s", got.Preference, got.ServerPreference, len(got.Suites), tt.peer)
			if got.Preference != tt.want || got.ServerPreference != (tt.want == PreferenceServer) {
				t.Errorf("got preference %q serverPreference %v, want %q", got.Preference, got.ServerPreference, tt.want)
			}
		})
	}
}

// TestTLS13PostQuantumGroups: Go's own TLS 1.3 server (a real
// implementation, in process) accepts the hybrid X25519MLKEM768, which
// the group enumeration finds beside the classic curves.
func TestTLS13PostQuantumGroups(t *testing.T) {
	res := scanTLS13Only(t, "pq.test")
	var names []string
	for _, g := range res.CipherSuites.TLS13.KeyExchange {
		names = append(names, g.Name)
	}
	t.Logf("TLS 1.3 groups: %v; forwardSecrecy %s", names, *res.Certificate.ForwardSecrecy.EphemeralKeyName)
	for _, want := range []string{"X25519MLKEM768", "X25519", "P-256", "P-384"} {
		if !slices.Contains(names, want) {
			t.Errorf("TLS 1.3 groups %v lack %s", names, want)
		}
	}
	if !res.Advisory.PostQuantum.Found() {
		t.Errorf("postQuantum: got %+v, want supported", res.Advisory.PostQuantum)
	}
}
