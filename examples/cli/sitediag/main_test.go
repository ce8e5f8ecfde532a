package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/dnstest"
)

// TestBinary builds the command and runs it against local fixtures:
// shop.test over TLS with a certificate 5 days from expiry and a broken
// link, resolved by a local DNS server, loopback allowed by flag.
func TestBinary(t *testing.T) {
	bin := t.TempDir() + "/sitediag"
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dns := dnstest.Start(t)
	dns.Add(t, "shop.test. 60 IN A 127.0.0.1", "shop.test. 60 IN MX 10 mail.shop.test.")
	site := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			http.NotFound(w, r)
		case "/clean":
			io.WriteString(w, `<!doctype html><a href="/">home</a>`)
		default:
			io.WriteString(w, `<!doctype html><a href="/clean">clean</a><a href="/missing">missing</a>`)
		}
	}))
	site.Config.ErrorLog = log.New(io.Discard, "", 0)
	site.TLS = &tls.Config{Certificates: []tls.Certificate{shortCert(t)}}
	site.StartTLS()
	defer site.Close()
	shop := "https://shop.test:" + site.URL[strings.LastIndex(site.URL, ":")+1:]
	config := []string{"--dns-servers", dns.Addr, "--allow-networks", "127.0.0.1/32"}

	for _, tc := range []struct {
		name     string
		args     []string
		wantExit int
		stdout   []string
		stderr   string
	}{
		{"up", []string{"up", shop}, 0, []string{"reachable  yes", "status     200 OK"}, ""},
		{"flags after the target", []string{"up", shop, "--json"}, 0, []string{`"statusCode": 200`}, ""},
		{"dns MX", []string{"dns", "shop.test", "MX"}, 0, []string{`MX    [{"exchange":"mail.shop.test","priority":10}]`}, ""},
		{"broken link is a finding", []string{"brokenlink", shop}, 1,
			[]string{"404  " + shop + "/missing", "FINDING: 1 broken link(s)"}, ""},
		{"no broken link", []string{"brokenlink", shop + "/clean"}, 0, []string{"200  " + shop + "/"}, ""},
		{"certificate expiring is a finding", []string{"tlsscan", strings.TrimPrefix(shop, "https://")}, 1,
			[]string{"TLS 1.3   yes", "SSL 3.0   no", "FINDING: the certificate expires in 4 days", "FINDING: the certificate is not trusted"}, ""},
		{"refused target is an error", []string{"up", "http://169.254.169.254/"}, 2, nil, "error code: TARGET_NOT_ALLOWED"},
		{"unknown command", []string{"nope", shop}, 2, nil, `unknown command "nope"`},
		{"missing argument", []string{"up"}, 2, nil, "usage: sitediag up"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if len(args) > 1 {
				args = append(append([]string{args[0]}, config...), args[1:]...)
			}
			cmd := exec.Command(bin, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			exit := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				exit = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if exit != tc.wantExit {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", exit, tc.wantExit, stdout.String(), stderr.String())
			}
			flat := strings.Join(strings.Fields(stdout.String()), " ") // tables are aligned with spaces
			for _, want := range tc.stdout {
				if !strings.Contains(flat, strings.Join(strings.Fields(want), " ")) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
				}
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr.String())
			}
			if len(tc.args) > 2 && tc.args[2] == "--json" && !json.Valid(stdout.Bytes()) {
				t.Errorf("--json printed no JSON:\n%s", stdout.String())
			}
		})
	}
}

// shortCert is a self-signed certificate for shop.test that expires in
// 5 days.
func shortCert(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(18),
		Subject:      pkix.Name{CommonName: "shop.test"},
		DNSNames:     []string{"shop.test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(5*24*time.Hour - time.Minute),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
