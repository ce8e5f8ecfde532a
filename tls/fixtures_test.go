package tls

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	cryptotls "crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/sitediag/sitediag/net/netx"
)

// testNow is the clock the fixtures' certificates are judged at.
var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// certSpec describes a fixture certificate.
type certSpec struct {
	cn        string
	dnsNames  []string
	ips       []net.IP
	notBefore time.Time
	notAfter  time.Time
	rsa       bool
}

var (
	rsaOnce sync.Once
	rsaKey  *rsa.PrivateKey
)

func fixtureKey(t testing.TB, useRSA bool) crypto.Signer {
	t.Helper()
	if useRSA {
		rsaOnce.Do(func() {
			var err error
			if rsaKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
				panic(err)
			}
		})
		return rsaKey
	}
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// testCA is a root that signs fixture leaves.
type testCA struct {
	cert *x509.Certificate
	key  crypto.Signer
	pool *x509.CertPool
}

func newCA(t testing.TB) *testCA {
	t.Helper()
	key := fixtureKey(t, false)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "Fixture Root CA", Organization: []string{"Fixture Org"}, Country: []string{"GB"}},
		NotBefore:             testNow.AddDate(-1, 0, 0),
		NotAfter:              testNow.AddDate(5, 0, 0),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

// issue returns a leaf for spec signed by ca, or self-signed when ca is
// nil.
func (ca *testCA) issue(t testing.TB, spec certSpec) cryptotls.Certificate {
	t.Helper()
	key := fixtureKey(t, spec.rsa)
	if spec.notBefore.IsZero() {
		spec.notBefore = testNow.AddDate(0, -1, 0)
	}
	if spec.notAfter.IsZero() {
		spec.notAfter = testNow.AddDate(0, 6, 0)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(0x1234abcd),
		Subject:      pkix.Name{CommonName: spec.cn},
		DNSNames:     spec.dnsNames,
		IPAddresses:  spec.ips,
		NotBefore:    spec.notBefore,
		NotAfter:     spec.notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	parent, signer := tmpl, key
	if ca != nil {
		parent, signer = ca.cert, ca.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), signer)
	if err != nil {
		t.Fatal(err)
	}
	chain := [][]byte{der}
	if ca != nil {
		chain = append(chain, ca.cert.Raw)
	}
	return cryptotls.Certificate{Certificate: chain, PrivateKey: key}
}

// serveTLS runs a crypto/tls server with cfg on 127.0.0.1 until the test
// ends and returns its address.
func serveTLS(t testing.TB, cfg *cryptotls.Config) string {
	t.Helper()
	return serve(t, func(c net.Conn) {
		tc := cryptotls.Server(c, cfg)
		if tc.Handshake() == nil {
			tc.Write([]byte("ok"))
		}
	})
}

// serve accepts connections on 127.0.0.1 until the test ends, handing
// each to handle with a 5 s deadline and closing it afterwards.
func serve(t testing.TB, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Second))
				handle(c)
			}()
		}
	}()
	return ln.Addr().String()
}

// dialer returns a dial that connects to addr whatever it is asked for.
func dialer(addr string) netx.DialFunc {
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}
}

// scanAt scans addr as host with the fixture clock and roots.
func scanAt(t testing.TB, addr, host string, roots *x509.CertPool) (*Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return Scan(ctx, dialer(addr), host, Options{Roots: roots, Now: func() time.Time { return testNow }})
}

// scanTLS13Only scans crypto/tls speaking TLS 1.3 only, as host with a
// certificate for it.
func scanTLS13Only(t testing.TB, host string) *Result {
	t.Helper()
	ca := newCA(t)
	cert := ca.issue(t, certSpec{cn: host, dnsNames: []string{host}})
	addr := serveTLS(t, &cryptotls.Config{Certificates: []cryptotls.Certificate{cert}, MinVersion: cryptotls.VersionTLS13})
	return mustScan(t, addr, host, ca.pool)
}

// mustScan is scanAt that fails the test when the scan fails.
func mustScan(t testing.TB, addr, host string, roots *x509.CertPool) *Result {
	t.Helper()
	res, err := scanAt(t, addr, host, roots)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
