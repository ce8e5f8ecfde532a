package tls

import (
	cryptotls "crypto/tls"
	"crypto/x509"
	"net"
	"testing"
	"time"
)

func TestScanCertificateFindings(t *testing.T) {
	ca := newCA(t)
	tests := []struct {
		name   string
		issuer *testCA
		spec   certSpec
		host   string
		check  func(t *testing.T, c Certificate)
	}{
		{
			name:   "expired self-signed",
			issuer: nil,
			spec: certSpec{cn: "expired.test", dnsNames: []string{"expired.test"},
				notBefore: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), notAfter: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)},
			host: "expired.test",
			check: func(t *testing.T, c Certificate) {
				if !c.IsExpired || c.IsNotYetValid || !c.SelfSigned || c.Trusted {
					t.Errorf("got expired %v notYetValid %v selfSigned %v trusted %v, want expired, self-signed, untrusted",
						c.IsExpired, c.IsNotYetValid, c.SelfSigned, c.Trusted)
				}
				if c.Expiry != "Jan  2 03:04:05 2025 GMT" || c.ValidFrom != "Jan  2 03:04:05 2024 GMT" {
					t.Errorf("got expiry %q validFrom %q", c.Expiry, c.ValidFrom)
				}
				if c.DaysRemaining != -424 {
					t.Errorf("daysRemaining: got %d, want -424", c.DaysRemaining)
				}
				if c.AuthorizationError == nil || *c.AuthorizationError != "CERT_HAS_EXPIRED" {
					t.Errorf("authorizationError: got %v, want CERT_HAS_EXPIRED", c.AuthorizationError)
				}
				if c.Issuer.CommonName != "expired.test" || c.Chain.Length != 1 || !c.Chain.Complete {
					t.Errorf("issuer %q chain %+v, want itself, one certificate, complete", c.Issuer.CommonName, c.Chain)
				}
			},
		},
		{
			name:   "self-signed in date",
			issuer: nil,
			spec:   certSpec{cn: "self.test", dnsNames: []string{"self.test"}},
			host:   "self.test",
			check: func(t *testing.T, c Certificate) {
				if c.Trusted || c.AuthorizationError == nil || *c.AuthorizationError != "DEPTH_ZERO_SELF_SIGNED_CERT" {
					t.Errorf("got trusted %v error %v, want DEPTH_ZERO_SELF_SIGNED_CERT", c.Trusted, c.AuthorizationError)
				}
			},
		},
		{
			name:   "hostname mismatch",
			issuer: ca,
			spec:   certSpec{cn: "other.test", dnsNames: []string{"other.test", "*.other.test"}},
			host:   "site.test",
			check: func(t *testing.T, c Certificate) {
				if c.HostnameMatches || c.Trusted || c.AuthorizationError == nil || *c.AuthorizationError != "ERR_TLS_CERT_ALTNAME_INVALID" {
					t.Errorf("got hostnameMatches %v trusted %v error %v, want a mismatch", c.HostnameMatches, c.Trusted, c.AuthorizationError)
				}
				if c.SubjectAltName != "DNS:other.test, DNS:*.other.test" {
					t.Errorf("subjectAltName: got %q", c.SubjectAltName)
				}
			},
		},
		{
			name:   "not yet valid",
			issuer: ca,
			spec:   certSpec{cn: "future.test", dnsNames: []string{"future.test"}, notBefore: testNow.AddDate(0, 0, 3)},
			host:   "future.test",
			check: func(t *testing.T, c Certificate) {
				if !c.IsNotYetValid || c.IsExpired || c.Trusted || c.AuthorizationError == nil || *c.AuthorizationError != "CERT_NOT_YET_VALID" {
					t.Errorf("got notYetValid %v expired %v trusted %v error %v", c.IsNotYetValid, c.IsExpired, c.Trusted, c.AuthorizationError)
				}
			},
		},
		{
			name:   "trusted chain",
			issuer: ca,
			spec:   certSpec{cn: "site.test", dnsNames: []string{"site.test"}},
			host:   "site.test",
			check: func(t *testing.T, c Certificate) {
				if !c.Trusted || c.AuthorizationError != nil || !c.HostnameMatches || c.SelfSigned {
					t.Errorf("got trusted %v error %v", c.Trusted, c.AuthorizationError)
				}
				if c.Issuer != (Issuer{Country: "GB", Organization: "Fixture Org", CommonName: "Fixture Root CA"}) {
					t.Errorf("issuer: got %+v", c.Issuer)
				}
				if c.DaysRemaining != 184 || c.Expiry != "Sep  1 12:00:00 2026 GMT" {
					t.Errorf("got daysRemaining %d expiry %q", c.DaysRemaining, c.Expiry)
				}
				if c.KeyType != "ECDSA" || c.KeyBits != 256 || c.WeakKey || c.SignatureAlgorithm != "ECDSA-SHA256" || c.SerialNumber != "1234ABCD" {
					t.Errorf("got key %s/%d weak %v sig %s serial %s", c.KeyType, c.KeyBits, c.WeakKey, c.SignatureAlgorithm, c.SerialNumber)
				}
				if c.Chain.Length != 2 || !c.Chain.Complete || c.Chain.Certificates[1].CommonName != "Fixture Root CA" ||
					c.Chain.Certificates[0].FingerprintSHA256 != c.FingerprintSHA256 || len(c.FingerprintSHA256) != 95 {
					t.Errorf("chain: got %+v", c.Chain)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cert := tt.issuer.issue(t, tt.spec)
			addr := serveTLS(t, &cryptotls.Config{Certificates: []cryptotls.Certificate{cert}})
			res := mustScan(t, addr, tt.host, ca.pool)
			tt.check(t, res.Certificate)
		})
	}
}

func TestSubjectAltNameOrder(t *testing.T) {
	spec := certSpec{cn: "x", dnsNames: []string{"b.test", "a.test"}, ips: []net.IP{net.IPv4(192, 0, 2, 1), net.ParseIP("2001:db8::1")}}
	tc := (*testCA)(nil).issue(t, spec)
	leaf, err := x509.ParseCertificate(tc.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	want := "DNS:b.test, DNS:a.test, IP Address:192.0.2.1, IP Address:2001:db8::1"
	if got := subjectAltName(leaf); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestDescribeNoCertificate(t *testing.T) {
	c := describeCertificate(nil, "site.test", nil, testNow)
	if c.Trusted || c.AuthorizationError == nil || *c.AuthorizationError != "NO_PEER_CERTIFICATE" || c.Chain.Certificates == nil {
		t.Errorf("got %+v", c)
	}
}
