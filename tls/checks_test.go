package tls

import (
	"bytes"
	"context"
	"crypto/rsa"
	cryptotls "crypto/tls"
	"encoding/binary"
	"errors"
	"math/big"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// bleedingHeart answers a heartbeat request as OpenSSL 1.0.1 to 1.0.1f
// did: with as many bytes as the request claims, copied from its read
// buffer past the request's end.
func bleedingHeart(c net.Conn) {
	buf := make([]byte, 4096)
	n, err := c.Read(buf)
	if err != nil || n < 8 || buf[0] != recordHeartbeat || buf[5] != heartbeatRequest {
		return
	}
	claimed := int(binary.BigEndian.Uint16(buf[6:]))
	echo := binary.BigEndian.AppendUint16([]byte{heartbeatResponse}, uint16(claimed))
	leak := make([]byte, claimed) // the over-read: what follows in the buffer, then zeros
	copy(leak, buf[8:n])
	echo = append(echo, leak...)
	echo = append(echo, make([]byte, 16)...)
	c.Write(appendRecord(nil, recordHeartbeat, binary.BigEndian.Uint16(buf[1:]), echo))
}

// TestScanHeartbleed: the vulnerable responder is judged vulnerable by
// sslscan 2.0.7 too ("TLSv1.2 vulnerable to heartbleed", with its
// 16 KiB over-read request); OpenSSL 3 and GnuTLS servers are not
// (TestRealChecks).
func TestScanHeartbleed(t *testing.T) {
	ca := newCA(t)
	cert := ca.issue(t, certSpec{cn: "site.test", rsa: true}).Certificate[0]
	suites := []uint16{0xC02F, 0xC014, 0xC013, 0x0035, 0x002F} // ECDHE-RSA and RSA, GCM and CBC: sslscan's hello has some of them
	tests := []struct {
		name       string
		server     legacyServer
		heartbeat  bool
		vulnerable bool
	}{
		{"vulnerable", legacyServer{version: versionTLS12, suites: suites, cert: cert, heartbeat: true, next: bleedingHeart}, true, true},
		{"no heartbeat extension", legacyServer{version: versionTLS12, suites: suites, cert: cert}, false, false},
		{"heartbeat, requests dropped", legacyServer{version: versionTLS12, suites: suites, cert: cert, heartbeat: true}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustScan(t, tt.server.start(t), "site.test", ca.pool)
			hb := res.Vulnerabilities.Heartbleed
			if hb.Heartbeat == nil || *hb.Heartbeat != tt.heartbeat || hb.Found() != tt.vulnerable {
				t.Fatalf("got %+v (heartbeat %v), want heartbeat %v vulnerable %v", hb, hb.Heartbeat, tt.heartbeat, tt.vulnerable)
			}
			if tt.vulnerable && (len(hb.Evidence) != 1 || !strings.Contains(hb.Evidence[0], "16 bytes read beyond the request")) {
				t.Errorf("evidence: got %q", hb.Evidence)
			}
		})
	}
}

// paddingOracle reads the ClientKeyExchange and reacts as a server with
// a Bleichenbacher oracle does: its alert tells what was wrong with the
// decrypted premaster secret's padding. Valid padding (the version is
// not checked) waits for the Finished and fails its MAC.
func paddingOracle(key *rsa.PrivateKey) func(net.Conn) {
	return func(c net.Conn) {
		typ, fragment, err := readRecord(c)
		if err != nil || typ != recordHandshake || len(fragment) < 6 || fragment[0] != typeClientKeyExchange {
			return
		}
		m := new(big.Int).Exp(new(big.Int).SetBytes(fragment[6:]), key.D, key.N).FillBytes(make([]byte, key.Size()))
		sep := bytes.IndexByte(m[2:], 0)
		switch {
		case m[0] != 0 || m[1] != 2:
			c.Write(alertRecord(versionTLS12, 51)) // decrypt_error
		case sep < 0 || len(m)-(2+sep+1) != 48:
			c.Write(alertRecord(versionTLS12, 47)) // illegal_parameter
		default:
			readRecord(c)                          // ChangeCipherSpec
			readRecord(c)                          // Finished
			c.Write(alertRecord(versionTLS12, 20)) // bad_record_mac
		}
	}
}

func TestScanROBOT(t *testing.T) {
	ca := newCA(t)
	leaf := ca.issue(t, certSpec{cn: "site.test", rsa: true})
	key := leaf.PrivateKey.(*rsa.PrivateKey)
	suites := []uint16{0x009C, 0x002F} // RSA key transport: AES128-GCM-SHA256, AES128-SHA
	tests := []struct {
		name     string
		server   legacyServer
		rsa      bool // an RSA key-transport suite to probe with
		evidence []string
	}{
		{"padding oracle", legacyServer{version: versionTLS12, suites: suites, cert: leaf.Certificate[0], next: paddingOracle(key)}, true, []string{
			"TLSv1.2 TLS_RSA_WITH_AES_128_GCM_SHA256: strong oracle",
			"valid PKCS#1 padding: alert bad_record_mac",
			"wrong first bytes: alert decrypt_error",
			"0x00 in a wrong position: alert illegal_parameter",
			"no 0x00 separator: alert illegal_parameter",
			"wrong version in the premaster secret: alert bad_record_mac",
		}},
		{"the same reaction to every variant", legacyServer{version: versionTLS12, suites: suites, cert: leaf.Certificate[0]}, true, []string{}},
		{"no RSA key transport", legacyServer{version: versionTLS12, suites: []uint16{0xC02F}, cert: leaf.Certificate[0]}, false, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustScan(t, tt.server.start(t), "site.test", ca.pool)
			got := res.Vulnerabilities.ROBOT
			if got.Found() != (len(tt.evidence) > 0) || !slices.Equal(got.Evidence, tt.evidence) || orNull(got.RSAKeyTransport) != strconv.FormatBool(tt.rsa) {
				t.Errorf("got %+v, want evidence %q", got, tt.evidence)
			}
		})
	}
}

// slowTLS runs a crypto/tls server that waits delay before answering
// each connection's hello.
func slowTLS(t *testing.T, delay time.Duration) (string, *testCA) {
	ca := newCA(t)
	cfg := &cryptotls.Config{Certificates: []cryptotls.Certificate{ca.issue(t, certSpec{cn: "slow.test", dnsNames: []string{"slow.test"}})}}
	return serve(t, func(c net.Conn) {
		time.Sleep(delay)
		cryptotls.Server(c, cfg).Handshake()
	}), ca
}

// A slow but valid server: at the deadline, the scan gives what it
// found, and says what it did not finish.
func TestScanPartialAtDeadline(t *testing.T) {
	addr, ca := slowTLS(t, 300*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := Scan(ctx, dialer(addr), "slow.test", Options{Roots: ca.pool, Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatalf("got %v, want a partial result", err)
	}
	t.Logf("after %v: protocols %+v, unfinished %+v", time.Since(start).Round(time.Millisecond), res.Protocols, res.Unfinished)
	if !res.Partial || len(res.Unfinished.CipherSuites)+len(res.Unfinished.Checks) == 0 {
		t.Fatalf("got partial %v, unfinished %+v; want partial, with what was not finished", res.Partial, res.Unfinished)
	}
	if !res.Protocols.TLS12 || !res.Protocols.TLS13 || res.Certificate.CommonName != "slow.test" {
		t.Errorf("got protocols %+v, certificate %q; want TLS 1.2 and 1.3 found, and the certificate", res.Protocols, res.Certificate.CommonName)
	}
	lists := map[string]ProtocolSuites{"tls12": res.CipherSuites.TLS12, "tls13": res.CipherSuites.TLS13}
	for _, key := range res.Unfinished.CipherSuites {
		if l, ok := lists[key]; !ok || len(l.Suites) == 0 {
			t.Errorf("unfinished suites of %s, which is not a supported version (%+v)", key, l)
		}
	}
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Errorf("the scan took %v, long past its 1.5 s deadline", d)
	}
}

// The same server with a deadline that lets the scan finish: nothing is
// partial.
func TestScanNotPartialWhenDone(t *testing.T) {
	addr, ca := slowTLS(t, 20*time.Millisecond)
	res := mustScan(t, addr, "slow.test", ca.pool)
	if res.Partial || len(res.Unfinished.Protocols)+len(res.Unfinished.CipherSuites)+len(res.Unfinished.Checks) > 0 {
		t.Errorf("got partial %v, unfinished %+v; want a finished scan", res.Partial, res.Unfinished)
	}
}

// A server slower than the probe timeout is not found; raising the
// timeout finds it.
func TestScanProbeTimeout(t *testing.T) {
	addr, ca := slowTLS(t, 400*time.Millisecond)
	scan := func(timeout time.Duration) (*Result, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		return Scan(ctx, dialer(addr), "slow.test", Options{Roots: ca.pool, ProbeTimeout: timeout, Parallel: 16})
	}
	_, err := scan(200 * time.Millisecond)
	if !errors.Is(err, ErrNoProtocol) || reason(err) != "no answer in 0.2 s" {
		t.Errorf("probe timeout 0.2 s: got %v, want ErrNoProtocol, no answer in 0.2 s", err)
	}
	res, err := scan(2 * time.Second)
	if err != nil || !res.Protocols.TLS13 {
		t.Errorf("probe timeout 2 s: got %v, %+v; want TLS 1.3 found", err, res)
	}
}

// TLS_FALLBACK_SCSV: a server that answers a downgraded hello carrying
// it has no downgrade protection (the real servers at hand all have it:
// see TestRealChecks).
func TestScanFallbackSCSVIgnored(t *testing.T) {
	ca := newCA(t)
	cert := ca.issue(t, certSpec{cn: "site.test", rsa: true}).Certificate[0]
	srv := legacyServer{version: versionTLS12, min: versionTLS11, suites: []uint16{0xC02F}, cert: cert}
	res := mustScan(t, srv.start(t), "site.test", ca.pool)
	if got := res.Vulnerabilities.Poodle.FallbackSCSV; !res.Protocols.TLS11 || !res.Protocols.TLS12 || got == nil || *got {
		t.Errorf("got protocols %+v, fallbackScsv %v; want TLS 1.1 and 1.2, false", res.Protocols, got)
	}
}

// A check that cannot run reads not tested, with its reason, never
// false: a TLS 1.3-only server has nothing for the Heartbleed, ROBOT and
// renegotiation checks, which need TLS 1.0–1.2.
func TestChecksNotTestedAreNull(t *testing.T) {
	res := scanTLS13Only(t, "site.test")
	v := res.Vulnerabilities
	for name, f := range map[string]Finding{"heartbleed": v.Heartbleed.Finding, "robot": v.ROBOT.Finding, "renegotiation": v.Renegotiation.Finding} {
		if f.Vulnerable != nil || f.NotTestedReason == "" {
			t.Errorf("%s: got vulnerable %v, reason %q; want null with a reason", name, orNull(f.Vulnerable), f.NotTestedReason)
		}
	}
	if s := res.Advisory.SessionIDResumption; s.Supported != nil || !strings.HasPrefix(s.Details, "not tested") {
		t.Errorf("sessionIdResumption: got %+v, want not tested", s)
	}
	if f := v.RC4; f.Vulnerable == nil || *f.Vulnerable {
		t.Errorf("rc4: got %+v, want tested, not vulnerable", f)
	}
}
