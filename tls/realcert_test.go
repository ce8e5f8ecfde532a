package tls

import (
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestRealUnusualCertificates: what crypto/tls cannot handshake with is
// still read and judged. An RSA-PSS key (testssl: "RSASSA-PSS 2048
// bits"), with TLS 1.2 (the certificate in clear) and TLS 1.3 only
// (read by decrypting the flight by hand); a TLS 1.3 server with only
// TLS_AES_128_CCM_SHA256 or CCM_8, whose chain of two is valid
// (testssl: "Chain of trust ok", openssl s_client verify 0).
func TestRealUnusualCertificates(t *testing.T) {
	f := needOpenSSL(t)
	pssKey, pssCert := filepath.Join(f.dir, "pss-key.pem"), filepath.Join(f.dir, "pss.pem")
	out, err := exec.Command(f.openssl, "req", "-x509", "-newkey", "rsa-pss", "-pkeyopt", "rsa_keygen_bits:2048", "-nodes",
		"-keyout", pssKey, "-out", pssCert, "-subj", "/CN=real.test", "-addext", "subjectAltName=DNS:real.test", "-days", "3650").CombinedOutput()
	if err != nil {
		t.Fatalf("openssl req: %v: %s", err, out)
	}
	tests := []struct {
		name        string
		args        []string
		keyType     string
		keyBits     int
		chainLength int
		trusted     bool
		tls13Suites []string
	}{
		{"RSA-PSS key, TLS 1.2", []string{"-cert", pssCert, "-key", pssKey, "-tls1_2"}, "RSA-PSS", 2048, 1, false, nil},
		{"RSA-PSS key, TLS 1.3 only", []string{"-cert", pssCert, "-key", pssKey, "-tls1_3"}, "RSA-PSS", 2048, 1, false, nil},
		{"TLS 1.3 AES-128-CCM only", []string{"-cert", f.leaf, "-key", f.key, "-cert_chain", f.inter, "-tls1_3",
			"-ciphersuites", "TLS_AES_128_CCM_SHA256"}, "RSA", 2048, 2, true, []string{"TLS_AES_128_CCM_SHA256"}},
		{"TLS 1.3 AES-128-CCM-8 only", []string{"-cert", f.leaf, "-key", f.key, "-cert_chain", f.inter, "-tls1_3",
			"-ciphersuites", "TLS_AES_128_CCM_8_SHA256"}, "RSA", 2048, 2, true, []string{"TLS_AES_128_CCM_8_SHA256"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := f.scan(t, f.sServerWith(tt.args...))
			c := res.Certificate
			t.Logf("keyType %s %d, chain %d, trusted %v %v, notRead %q, tls13 %v", c.KeyType, c.KeyBits, c.Chain.Length, c.Trusted,
				orNullString(c.AuthorizationError), c.NotRead, res.CipherSuites.TLS13.Suites)
			if c.KeyType != tt.keyType || c.KeyBits != tt.keyBits || c.Chain.Length != tt.chainLength || c.Trusted != tt.trusted || c.CommonName != "real.test" {
				t.Errorf("got key %s %d, chain %d, trusted %v; want %s %d, chain %d, trusted %v", c.KeyType, c.KeyBits, c.Chain.Length, c.Trusted,
					tt.keyType, tt.keyBits, tt.chainLength, tt.trusted)
			}
			if tt.tls13Suites != nil && !slices.Equal(res.CipherSuites.TLS13.Suites, tt.tls13Suites) {
				t.Errorf("tls13 suites: got %v, want %v", res.CipherSuites.TLS13.Suites, tt.tls13Suites)
			}
		})
	}
}

// TestRealClientCertificate: s_server asking for a client certificate
// (-verify, optional) or requiring one (-Verify), with TLS 1.2 and
// 1.3; the CA names it sends are the -CAfile's. testssl: "Client
// Authentication: optional / required"; openssl s_client prints
// "Acceptable client certificate CA names: /CN=Real Root".
func TestRealClientCertificate(t *testing.T) {
	f := needOpenSSL(t)
	tests := []struct {
		name                string
		args                []string
		requested, required string
		caNames             []string
	}{
		{"none", []string{"-tls1_2"}, "false", "false", []string{}},
		{"TLS 1.2 optional", []string{"-tls1_2", "-verify", "1"}, "true", "false", []string{"CN=Real Root"}},
		{"TLS 1.2 required", []string{"-tls1_2", "-Verify", "1"}, "true", "true", []string{"CN=Real Root"}},
		{"TLS 1.3 optional", []string{"-tls1_3", "-verify", "1"}, "true", "false", []string{"CN=Real Root"}},
		{"TLS 1.3 required", []string{"-tls1_3", "-Verify", "1"}, "true", "true", []string{"CN=Real Root"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := f.scan(t, f.sServer(append([]string{"-CAfile", f.root}, tt.args...)...))
			t.Logf("requested %s, required %s, CA names %q; certificate %s trusted %v", orNull(res.ClientCertificateRequested),
				orNull(res.ClientCertificateRequired), res.ClientCertificateCANames, res.Certificate.CommonName, res.Certificate.Trusted)
			if orNull(res.ClientCertificateRequested) != tt.requested || orNull(res.ClientCertificateRequired) != tt.required ||
				!slices.Equal(res.ClientCertificateCANames, tt.caNames) {
				t.Errorf("got requested %s required %s names %q; want %s %s %q", orNull(res.ClientCertificateRequested),
					orNull(res.ClientCertificateRequired), res.ClientCertificateCANames, tt.requested, tt.required, tt.caNames)
			}
			if !res.Certificate.Trusted {
				t.Errorf("certificate: got %+v, want it read and trusted", res.Certificate)
			}
		})
	}
}

func orNullString(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// TestRealCertificateNotRead: a TLS 1.3 server whose only group is
// ffdhe2048 gets no handshake from crypto/tls and no key share the scan
// sends: its certificate is "not read", never NO_PEER_CERTIFICATE
// (testssl reads it with its own OpenSSL; ours says what it could not
// do rather than judge a certificate it did not see).
func TestRealCertificateNotRead(t *testing.T) {
	f := needOpenSSL(t)
	res := f.scan(t, f.sServer("-tls1_3", "-groups", "ffdhe2048"))
	c := res.Certificate
	t.Logf("authorizationError %s, notRead %q", orNullString(c.AuthorizationError), c.NotRead)
	if !res.Protocols.TLS13 || orNullString(c.AuthorizationError) != CertificateNotRead || c.NotRead == "" || c.Trusted {
		t.Errorf("got protocols %+v, certificate %+v; want TLS 1.3 and the certificate not read", res.Protocols, c)
	}
}
