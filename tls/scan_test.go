package tls

import (
	"context"
	cryptotls "crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// goSuites are the TLS 1.0–1.2 suites the crypto/tls fixtures serve.
var goSuites = []uint16{
	cryptotls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	cryptotls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	cryptotls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305,
	cryptotls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
	cryptotls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
}

func TestScanProtocolVersions(t *testing.T) {
	ca := newCA(t)
	cert := ca.issue(t, certSpec{cn: "site.test", dnsNames: []string{"site.test"}})
	tests := []struct {
		name     string
		min, max uint16
		want     Protocols
	}{
		{"TLS 1.0 only", cryptotls.VersionTLS10, cryptotls.VersionTLS10, Protocols{TLS10: true}},
		{"TLS 1.1 only", cryptotls.VersionTLS11, cryptotls.VersionTLS11, Protocols{TLS11: true}},
		{"TLS 1.2 only", cryptotls.VersionTLS12, cryptotls.VersionTLS12, Protocols{TLS12: true}},
		{"TLS 1.3 only", cryptotls.VersionTLS13, cryptotls.VersionTLS13, Protocols{TLS13: true}},
		{"TLS 1.0 to 1.3", cryptotls.VersionTLS10, cryptotls.VersionTLS13, Protocols{TLS10: true, TLS11: true, TLS12: true, TLS13: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := serveTLS(t, &cryptotls.Config{
				Certificates: []cryptotls.Certificate{cert},
				MinVersion:   tt.min,
				MaxVersion:   tt.max,
				CipherSuites: goSuites,
			})
			res := mustScan(t, addr, "site.test", ca.pool)
			if res.Protocols != tt.want {
				t.Errorf("protocols: got %+v, want %+v", res.Protocols, tt.want)
			}
			lists := map[string]struct {
				supported bool
				suites    ProtocolSuites
			}{
				"ssl2": {tt.want.SSL2, res.CipherSuites.SSL2}, "ssl3": {tt.want.SSL3, res.CipherSuites.SSL3},
				"tls10": {tt.want.TLS10, res.CipherSuites.TLS10}, "tls11": {tt.want.TLS11, res.CipherSuites.TLS11},
				"tls12": {tt.want.TLS12, res.CipherSuites.TLS12}, "tls13": {tt.want.TLS13, res.CipherSuites.TLS13},
			}
			for name, l := range lists {
				if l.supported != (len(l.suites.Suites) > 0) {
					t.Errorf("%s: supported %v but suites %v", name, l.supported, l.suites.Suites)
				}
			}
			if res.Certificate.CommonName != "site.test" || !res.Certificate.Trusted {
				t.Errorf("certificate: got CN %q trusted %v (%v), want site.test trusted",
					res.Certificate.CommonName, res.Certificate.Trusted, res.Certificate.AuthorizationError)
			}
		})
	}
}

func TestScanEnumeratesInServerOrder(t *testing.T) {
	ca := newCA(t)
	cert := ca.issue(t, certSpec{cn: "site.test", dnsNames: []string{"site.test"}, rsa: true})
	addr := serveTLS(t, &cryptotls.Config{
		Certificates: []cryptotls.Certificate{cert},
		MinVersion:   cryptotls.VersionTLS12,
		MaxVersion:   cryptotls.VersionTLS13,
		CipherSuites: []uint16{
			cryptotls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
			cryptotls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
			cryptotls.TLS_RSA_WITH_AES_128_GCM_SHA256,
			cryptotls.TLS_RSA_WITH_3DES_EDE_CBC_SHA,
			cryptotls.TLS_RSA_WITH_RC4_128_SHA,
		},
	})
	res := mustScan(t, addr, "site.test", ca.pool)
	// crypto/tls has a fixed preference: ECDHE before RSA key exchange,
	// AEAD before CBC, 3DES and RC4 last.
	want := []string{
		"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
		"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
		"TLS_RSA_WITH_AES_128_GCM_SHA256",
		"TLS_RSA_WITH_3DES_EDE_CBC_SHA",
		"TLS_RSA_WITH_RC4_128_SHA",
	}
	if got := res.CipherSuites.TLS12; !slices.Equal(got.Suites, want) || !got.ServerPreference {
		t.Errorf("tls12: got %+v, want server preference %v", got, want)
	}
	wantTLS13 := []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"}
	if got := res.CipherSuites.TLS13.Suites; !sameSet(got, wantTLS13) {
		t.Errorf("tls13: got %v, want %v in any order", got, wantTLS13)
	}
	v := res.Vulnerabilities
	if !v.Sweet32.Found() || !slices.Equal(v.Sweet32.Evidence, []string{"TLSv1.2 TLS_RSA_WITH_3DES_EDE_CBC_SHA"}) {
		t.Errorf("sweet32: got %+v", v.Sweet32)
	}
	if !v.RC4.Found() || !slices.Equal(v.RC4.Evidence, []string{"TLSv1.2 TLS_RSA_WITH_RC4_128_SHA"}) {
		t.Errorf("rc4: got %+v", v.RC4)
	}
	for name, f := range map[string]Finding{"poodle": v.Poodle.Finding, "drown": v.DROWN, "freak": v.FREAK,
		"logjam": v.Logjam, "nullCipher": v.NullCipher, "anonymousCipher": v.AnonymousCipher, "crime": v.CRIME} {
		if f.Found() {
			t.Errorf("%s: got vulnerable %v, want not", name, f.Evidence)
		}
	}
	if v.Poodle.FallbackSCSV == nil || !*v.Poodle.FallbackSCSV {
		t.Errorf("fallbackScsv: got %v, want true (crypto/tls refuses downgrades)", v.Poodle.FallbackSCSV)
	}
	if !res.Advisory.SecureRenegotiation.Found() {
		t.Errorf("secureRenegotiation: got %+v, want supported", res.Advisory.SecureRenegotiation)
	}
	if res.Advisory.OCSPStapling.Found() {
		t.Errorf("ocspStapling: got %+v, want none", res.Advisory.OCSPStapling)
	}
	fs := res.Certificate.ForwardSecrecy
	if fs.Protocol == nil || *fs.Protocol != "TLSv1.3" || fs.NegotiatedCipher == nil || fs.EphemeralKeyType == nil {
		t.Errorf("forwardSecrecy: got %+v", fs)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestScanOCSPStapling(t *testing.T) {
	ca := newCA(t)
	cert := ca.issue(t, certSpec{cn: "site.test", dnsNames: []string{"site.test"}})
	cert.OCSPStaple = []byte{0x30, 0x03, 0x0a, 0x01, 0x00} // any bytes: the scan only sees that one came
	addr := serveTLS(t, &cryptotls.Config{Certificates: []cryptotls.Certificate{cert}})
	res := mustScan(t, addr, "site.test", ca.pool)
	if !res.Advisory.OCSPStapling.Found() {
		t.Errorf("ocspStapling: got %+v, want supported", res.Advisory.OCSPStapling)
	}
}

func TestScanSSL3Responder(t *testing.T) {
	ca := newCA(t)
	cert := ca.issue(t, certSpec{cn: "old.test", dnsNames: []string{"old.test"}, rsa: true})
	addr := legacyServer{
		version: versionSSL3,
		suites:  []uint16{0x002F, 0x000A}, // TLS_RSA_WITH_AES_128_CBC_SHA, TLS_RSA_WITH_3DES_EDE_CBC_SHA
		cert:    cert.Certificate[0],
	}.start(t)
	res := mustScan(t, addr, "old.test", ca.pool)
	if want := (Protocols{SSL3: true}); res.Protocols != want {
		t.Errorf("protocols: got %+v, want %+v", res.Protocols, want)
	}
	wantSuites := []string{"TLS_RSA_WITH_AES_128_CBC_SHA", "TLS_RSA_WITH_3DES_EDE_CBC_SHA"}
	if got := res.CipherSuites.SSL3; !slices.Equal(got.Suites, wantSuites) || !got.ServerPreference {
		t.Errorf("ssl3 suites: got %+v, want server preference %v", got, wantSuites)
	}
	p := res.Vulnerabilities.Poodle
	if !p.Found() || !slices.Equal(p.Evidence, []string{"SSLv3 TLS_RSA_WITH_AES_128_CBC_SHA", "SSLv3 TLS_RSA_WITH_3DES_EDE_CBC_SHA"}) {
		t.Errorf("poodle: got %+v", p)
	}
	if p.FallbackSCSV != nil {
		t.Errorf("fallbackScsv: got %v, want null with one version", *p.FallbackSCSV)
	}
	// crypto/tls cannot speak SSL 3.0: the certificate comes from the
	// Certificate message the raw probe read, and forwardSecrecy from the
	// suite it picked: RSA key exchange, no ephemeral key.
	fs := res.Certificate.ForwardSecrecy
	if c := res.Certificate; c.CommonName != "old.test" || c.Issuer.CommonName != "Fixture Root CA" ||
		fs.Protocol == nil || *fs.Protocol != "SSLv3" || *fs.NegotiatedCipher != "TLS_RSA_WITH_AES_128_CBC_SHA" || fs.EphemeralKeyType != nil {
		t.Errorf("certificate: got CN %q issuer %q forwardSecrecy %+v", c.CommonName, c.Issuer.CommonName, c.ForwardSecrecy)
	}
}

func TestScanLegacyFindings(t *testing.T) {
	ca := newCA(t)
	cert := ca.issue(t, certSpec{cn: "legacy.test", dnsNames: []string{"legacy.test"}, rsa: true})
	addr := legacyServer{
		version: versionTLS10,
		suites: []uint16{
			0x0033, // TLS_DHE_RSA_WITH_AES_128_CBC_SHA
			0x0003, // TLS_RSA_EXPORT_WITH_RC4_40_MD5
			0x0014, // TLS_DHE_RSA_EXPORT_WITH_DES40_CBC_SHA
			0x0002, // TLS_RSA_WITH_NULL_SHA
			0x0034, // TLS_DH_anon_WITH_AES_128_CBC_SHA
		},
		cert:     cert.Certificate[0],
		dhBits:   512,
		compress: true,
	}.start(t)
	res := mustScan(t, addr, "legacy.test", ca.pool)
	if want := (Protocols{TLS10: true}); res.Protocols != want {
		t.Errorf("protocols: got %+v, want %+v", res.Protocols, want)
	}
	v := res.Vulnerabilities
	tests := []struct {
		name string
		got  Finding
		want []string
	}{
		{"freak", v.FREAK, []string{"TLSv1.0 TLS_RSA_EXPORT_WITH_RC4_40_MD5"}},
		{"logjam", v.Logjam, []string{
			"TLSv1.0 TLS_DHE_RSA_WITH_AES_128_CBC_SHA 512-bit DH group",
			"TLSv1.0 TLS_DHE_RSA_EXPORT_WITH_DES40_CBC_SHA",
			"TLSv1.0 TLS_DH_anon_WITH_AES_128_CBC_SHA 512-bit DH group",
		}},
		{"rc4", v.RC4, []string{"TLSv1.0 TLS_RSA_EXPORT_WITH_RC4_40_MD5"}},
		{"sweet32", v.Sweet32, []string{"TLSv1.0 TLS_DHE_RSA_EXPORT_WITH_DES40_CBC_SHA"}},
		{"nullCipher", v.NullCipher, []string{"TLSv1.0 TLS_RSA_WITH_NULL_SHA"}},
		{"anonymousCipher", v.AnonymousCipher, []string{"TLSv1.0 TLS_DH_anon_WITH_AES_128_CBC_SHA"}},
		{"crime", v.CRIME, []string{"TLSv1.0 DEFLATE compression"}},
		{"beast", v.BEAST, []string{
			"TLSv1.0 TLS_DHE_RSA_WITH_AES_128_CBC_SHA",
			"TLSv1.0 TLS_DHE_RSA_EXPORT_WITH_DES40_CBC_SHA",
			"TLSv1.0 TLS_DH_anon_WITH_AES_128_CBC_SHA",
		}},
		{"poodle", v.Poodle.Finding, []string{}},
		{"drown", v.DROWN, []string{}},
	}
	for _, tt := range tests {
		if tt.got.Found() != (len(tt.want) > 0) || !slices.Equal(tt.got.Evidence, tt.want) {
			t.Errorf("%s: got %+v, want evidence %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestScanSSL2Responder(t *testing.T) {
	ca := newCA(t)
	cert := ca.issue(t, certSpec{cn: "ancient.test", dnsNames: []string{"ancient.test"}, rsa: true})
	addr := ssl2Server{cert: cert.Certificate[0], ciphers: []uint32{0x0700C0, 0x010080}}.start(t)
	res := mustScan(t, addr, "ancient.test", ca.pool)
	if want := (Protocols{SSL2: true}); res.Protocols != want {
		t.Errorf("protocols: got %+v, want %+v", res.Protocols, want)
	}
	if got, want := res.CipherSuites.SSL2.Suites, []string{"SSL_CK_DES_192_EDE3_CBC_WITH_MD5", "SSL_CK_RC4_128_WITH_MD5"}; !slices.Equal(got, want) {
		t.Errorf("ssl2 ciphers: got %v, want %v", got, want)
	}
	if d := res.Vulnerabilities.DROWN; !d.Found() || d.Evidence[0] != "SSLv2 enabled" {
		t.Errorf("drown: got %+v", d)
	}
	if res.Certificate.CommonName != "ancient.test" {
		t.Errorf("certificate from SERVER-HELLO: got CN %q, want ancient.test", res.Certificate.CommonName)
	}
}

func TestScanSNI(t *testing.T) {
	ca := newCA(t)
	cert := ca.issue(t, certSpec{cn: "site.test", dnsNames: []string{"site.test"}, ips: []net.IP{net.IPv4(127, 0, 0, 1)}})
	for _, tt := range []struct{ host, wantSNI string }{{"site.test", "site.test"}, {"127.0.0.1", ""}} {
		t.Run(tt.host, func(t *testing.T) {
			seen := make(chan string, 64)
			addr := serveTLS(t, &cryptotls.Config{
				Certificates: []cryptotls.Certificate{cert},
				GetConfigForClient: func(hi *cryptotls.ClientHelloInfo) (*cryptotls.Config, error) {
					if len(hi.SupportedVersions) > 0 { // none for an SSL 3.0 hello, which carries no extensions
						seen <- hi.ServerName
					}
					return nil, nil
				},
			})
			res := mustScan(t, addr, tt.host, ca.pool)
			close(seen)
			n := 0
			for sni := range seen {
				n++
				if sni != tt.wantSNI {
					t.Errorf("SNI: got %q, want %q", sni, tt.wantSNI)
				}
			}
			if n == 0 {
				t.Error("the server saw no hello")
			}
			if !res.Certificate.HostnameMatches {
				t.Errorf("hostnameMatches: got false for %s", tt.host)
			}
		})
	}
}

func TestScanClosedPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = scanAt(t, addr, "site.test", nil)
	if !errors.Is(err, ErrNoProtocol) || !errors.Is(err, syscall.ECONNREFUSED) || reason(err) != "connection refused" {
		t.Errorf("got %v, want ErrNoProtocol wrapping ECONNREFUSED, reason connection refused", err)
	}
}

func TestScanSilentServer(t *testing.T) {
	// A server that accepts and never answers: every probe times out.
	addr := serve(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := Scan(ctx, dialer(addr), "site.test", Options{ProbeTimeout: 200 * time.Millisecond})
	if !errors.Is(err, ErrNoProtocol) || reason(err) != "no answer in 0.2 s" {
		t.Errorf("got %v, want ErrNoProtocol, no answer in 0.2 s", err)
	}
}

func TestScanContextCancelled(t *testing.T) {
	addr := serve(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Scan(ctx, dialer(addr), "site.test", Options{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestScanServerRefusingEverything(t *testing.T) {
	// Accepts, reads, and answers every hello with handshake_failure.
	addr := serve(t, func(c net.Conn) {
		readClientHello(c)
		c.Write(alertRecord(versionTLS12, 40))
	})
	_, err := scanAt(t, addr, "site.test", nil)
	if !errors.Is(err, ErrNoProtocol) || strings.Contains(err.Error(), "refused") || reason(err) != "alert handshake_failure" {
		t.Errorf("got %v, want ErrNoProtocol without a connection error, alert handshake_failure", err)
	}
}

// A plain HTTP server answers a hello with 400 Bad Request.
func TestScanPlainHTTP(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, err := scanAt(t, srv.Listener.Addr().String(), "site.test", nil)
	if !errors.Is(err, ErrNoProtocol) || reason(err) != "not TLS: it answered HTTP" {
		t.Errorf("got %v, want ErrNoProtocol, not TLS: it answered HTTP", err)
	}
}

// A server that answers with bytes that are no protocol at all.
func TestScanGarbage(t *testing.T) {
	addr := serve(t, func(c net.Conn) {
		readClientHello(c)
		c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
	})
	_, err := scanAt(t, addr, "site.test", nil)
	if !errors.Is(err, ErrNoProtocol) || !strings.HasPrefix(reason(err), "not TLS: ") {
		t.Errorf("got %v, want ErrNoProtocol, not TLS", err)
	}
}

// reason is a NoProtocolError's Reason, "" for another error.
func reason(err error) string {
	var np *NoProtocolError
	if !errors.As(err, &np) {
		return ""
	}
	return np.Reason
}

// Options.Parallel bounds the connections open at once, the server-order
// probes that run beside each enumeration included.
func TestScanParallelBoundsConnections(t *testing.T) {
	l := legacyServer{version: versionTLS12, suites: []uint16{0xC02F, 0xC030, 0x009C, 0x002F, 0x0035}}
	addr := serve(t, func(c net.Conn) {
		ch, ok := readClientHello(c)
		if !ok {
			return
		}
		time.Sleep(10 * time.Millisecond) // keep probes open long enough to overlap
		c.Write(l.answer(ch))
		io.Copy(io.Discard, c)
	})
	var mu sync.Mutex
	open, most := 0, 0
	dial := func(ctx context.Context, network, address string) (net.Conn, error) {
		c, err := dialer(addr)(ctx, network, address)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		open++
		most = max(most, open)
		mu.Unlock()
		return &closeHook{Conn: c, closed: func() {
			mu.Lock()
			open--
			mu.Unlock()
		}}, nil
	}
	const parallel = 2
	res, err := Scan(context.Background(), dial, "site.test", Options{Parallel: parallel, Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.CipherSuites.TLS12.Suites; len(got) != len(l.suites) {
		t.Errorf("tls12 suites: got %v, want %d", got, len(l.suites))
	}
	if most > parallel {
		t.Errorf("got %d connections open at once, want at most %d", most, parallel)
	}
}

// closeHook calls closed once when the connection is closed.
type closeHook struct {
	net.Conn
	once   sync.Once
	closed func()
}

func (c *closeHook) Close() error {
	c.once.Do(c.closed)
	return c.Conn.Close()
}

// The integrity-only suites of RFC 9150 are TLS 1.3 suites: offered in
// the TLS 1.3 hello, and a null cipher when chosen.
func TestScanTLS13IntegrityOnlySuites(t *testing.T) {
	own := []uint16{0xC0B4, 0x1301} // TLS_SHA256_SHA256, TLS_AES_128_GCM_SHA256
	addr := serve(t, func(c net.Conn) {
		ch, ok := readClientHello(c)
		if !ok {
			return
		}
		for _, id := range own {
			if slices.Contains(ch.suites, id) {
				c.Write(tls13ServerHello(id, false))
				return
			}
		}
		c.Write(alertRecord(versionTLS12, 40))
	})
	res := mustScan(t, addr, "site.test", nil)
	if want := (Protocols{TLS13: true}); res.Protocols != want {
		t.Errorf("protocols: got %+v, want %+v", res.Protocols, want)
	}
	if got, want := res.CipherSuites.TLS13.Suites, []string{"TLS_SHA256_SHA256", "TLS_AES_128_GCM_SHA256"}; !slices.Equal(got, want) {
		t.Errorf("tls13 suites: got %v, want %v", got, want)
	}
	if n := res.Vulnerabilities.NullCipher; !n.Found() || !slices.Equal(n.Evidence, []string{"TLSv1.3 TLS_SHA256_SHA256"}) {
		t.Errorf("nullCipher: got %+v", n)
	}
}
