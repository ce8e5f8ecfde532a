package tls

import (
	"bytes"
	"crypto/x509"
	"errors"
	"testing"

	"golang.org/x/crypto/cryptobyte"
)

func TestReadReplyAcrossRecords(t *testing.T) {
	// A ServerHello and Certificate split across three records.
	l := legacyServer{version: versionTLS12}
	suite, _ := SuiteByID(0xC02F)
	msgs := append(l.serverHello(clientHello{}, suite), handshakeMessage(typeCertificate, func(b *cryptobyte.Builder) {
		b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) {
			b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte("der")) })
		})
	})...)
	var wire []byte
	for _, part := range [][]byte{msgs[:10], msgs[10:50], msgs[50:]} {
		wire = append(wire, record(recordHandshake, versionTLS12, part)...)
	}
	rep, err := readReply(bytes.NewReader(wire), readNeeds{certificate: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.version != versionTLS12 || rep.suite != 0xC02F || !rep.renegotiationInfo || len(rep.certs) != 1 || string(rep.certs[0]) != "der" {
		t.Errorf("got %+v", rep)
	}
}

func TestReadReplyAlert(t *testing.T) {
	_, err := readReply(bytes.NewReader(alertRecord(versionTLS12, 70)), readNeeds{})
	var alert *alertError
	if !errors.As(err, &alert) || alert.Description != 70 {
		t.Errorf("got %v, want alert 70", err)
	}
}

// tls13ServerHello is a TLS 1.3 ServerHello choosing suite (a
// HelloRetryRequest when retry is set) in one record, followed by a
// ChangeCipherSpec record as middlebox-compatible servers send it.
func tls13ServerHello(suite uint16, retry bool) []byte {
	msg := handshakeMessage(typeServerHello, func(b *cryptobyte.Builder) {
		b.AddUint16(versionTLS12)
		if retry {
			b.AddBytes(helloRetryRandom)
		} else {
			b.AddBytes(make([]byte, 32))
		}
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(make([]byte, 32)) })
		b.AddUint16(suite)
		b.AddUint8(0)
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			addExtension(b, extSupportedVersions, func(b *cryptobyte.Builder) { b.AddUint16(versionTLS13) })
		})
	})
	return append(record(recordHandshake, versionTLS12, msg), record(20, versionTLS12, []byte{1})...)
}

// replySeeds are server answers of every kind readReply meets.
func replySeeds(t testing.TB) [][]byte {
	t.Helper()
	cert := newCA(t).issue(t, certSpec{cn: "seed.test", dnsNames: []string{"seed.test"}, ips: nil})
	all := clientHello{version: versionTLS12, suites: suitesFor(false), compression: []byte{1, 0}}
	server := func(suite uint16) legacyServer {
		return legacyServer{version: versionTLS12, suites: []uint16{suite}, cert: cert.Certificate[0], dhBits: 1024, compress: true}
	}
	return [][]byte{
		server(0xC02F).answer(all),                                // ECDHE, certificate
		server(0x0033).answer(all),                                // DHE: certificate and ServerKeyExchange
		server(0x0034).answer(all),                                // anonymous DHE: no certificate
		server(0x0033).answer(clientHello{version: versionTLS10}), // protocol_version alert
		tls13ServerHello(0x1301, false),
		tls13ServerHello(0x1301, true),
		ssl2Server{cert: cert.Certificate[0], ciphers: []uint32{0x010080}}.answer([]byte{1, 0, 0x80}),
	}
}

// FuzzReadReply feeds readReply hostile server answers: it must neither
// panic nor read past its bound, and must return a reply or an error.
// What it returns is then judged as a scan would, certificates included.
func FuzzReadReply(f *testing.F) {
	for _, seed := range replySeeds(f) {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	f.Fuzz(func(t *testing.T, wire []byte, certificate bool) {
		r := &countingReader{r: bytes.NewReader(wire)}
		rep, err := readReply(r, readNeeds{certificate: certificate})
		if (rep == nil) == (err == nil) {
			t.Fatalf("got reply %+v and error %v, want exactly one", rep, err)
		}
		if r.n > maxReply {
			t.Fatalf("read %d bytes, want at most %d", r.n, maxReply)
		}
		if rep == nil {
			return
		}
		judge(t, rep)
	})
}

// FuzzReadSSL2Reply is FuzzReadReply for SSL 2.0 answers.
func FuzzReadSSL2Reply(f *testing.F) {
	for _, seed := range replySeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, wire []byte) {
		rep, err := readSSL2Reply(bytes.NewReader(wire))
		if (rep == nil) == (err == nil) {
			t.Fatalf("got reply %+v and error %v, want exactly one", rep, err)
		}
		if rep == nil {
			return
		}
		if 3*len(rep.ssl2Ciphers) > len(wire) {
			t.Fatalf("%d cipher kinds from %d bytes", len(rep.ssl2Ciphers), len(wire))
		}
		judge(t, rep)
	})
}

// judge runs what a scan does with a reply: name its suite and
// describe the certificates it carries.
func judge(t *testing.T, rep *reply) {
	suiteName(rep.suite)
	versionName(rep.version)
	var chain []*x509.Certificate
	for _, der := range rep.certs {
		if c, err := x509.ParseCertificate(der); err == nil {
			chain = append(chain, c)
		}
	}
	if len(chain) > 0 {
		c := describeCertificate(chain, "seed.test", x509.NewCertPool(), testNow)
		if c.Chain.Length != len(chain) {
			t.Fatalf("chain length %d, want %d", c.Chain.Length, len(chain))
		}
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r interface{ Read([]byte) (int, error) }
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestReadReplySeeds(t *testing.T) {
	seeds := replySeeds(t)
	tests := []struct {
		name    string
		wire    []byte
		version uint16
		suite   uint16
		certs   int
		dhBits  int
		retry   bool
	}{
		{"ECDHE", seeds[0], versionTLS12, 0xC02F, 1, 0, false},
		{"DHE", seeds[1], versionTLS12, 0x0033, 1, 1024, false},
		{"anonymous DHE", seeds[2], versionTLS12, 0x0034, 0, 1024, false},
		{"TLS 1.3", seeds[4], versionTLS13, 0x1301, 0, 0, false},
		{"HelloRetryRequest", seeds[5], versionTLS13, 0x1301, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := readReply(bytes.NewReader(tt.wire), readNeeds{certificate: true})
			if err != nil {
				t.Fatal(err)
			}
			if rep.version != tt.version || rep.suite != tt.suite || len(rep.certs) != tt.certs || dhBits(rep) != tt.dhBits || rep.retry != tt.retry {
				t.Errorf("got version %04x suite %04x, %d certs, %d-bit DH, retry %v; want %04x %04x, %d, %d, %v",
					rep.version, rep.suite, len(rep.certs), dhBits(rep), rep.retry, tt.version, tt.suite, tt.certs, tt.dhBits, tt.retry)
			}
		})
	}
	if _, err := readReply(bytes.NewReader(seeds[6]), readNeeds{}); !errors.Is(err, errMalformed) {
		t.Errorf("SSL 2.0 SERVER-HELLO to a TLS hello: got %v, want errMalformed", err)
	}
	rep, err := readSSL2Reply(bytes.NewReader(seeds[6]))
	if err != nil || len(rep.ssl2Ciphers) != 1 || rep.ssl2Ciphers[0] != "SSL_CK_RC4_128_WITH_MD5" || len(rep.certs) != 1 {
		t.Errorf("SSL 2.0 SERVER-HELLO: got %+v, %v", rep, err)
	}
	if _, err := readSSL2Reply(bytes.NewReader(seeds[0])); !errors.Is(err, errTLSRecord) {
		t.Errorf("TLS ServerHello to an SSL 2.0 hello: got %v, want errTLSRecord", err)
	}
}

// dhBits is the size of a reply's DH group, 0 without one.
func dhBits(rep *reply) int {
	if rep.group == nil || rep.group.Type != "DH" {
		return 0
	}
	return rep.group.Bits
}
