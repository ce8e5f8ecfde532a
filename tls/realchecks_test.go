package tls

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// checkVerdicts sums up the checks that need a server's cooperation
// beyond its hello: "heartbeat=false heartbleed=false rsaKeyTransport=true robot=false
// clientRenegotiation=false fallbackScsv=true sessionId=true
// ticket=true"; null is a check that could not be run.
func checkVerdicts(r *Result) string {
	v, a := r.Vulnerabilities, r.Advisory
	return fmt.Sprintf("heartbeat=%s heartbleed=%s rsaKeyTransport=%s robot=%s clientRenegotiation=%s fallbackScsv=%s sessionId=%s ticket=%s",
		orNull(v.Heartbleed.Heartbeat), orNull(v.Heartbleed.Vulnerable), orNull(v.ROBOT.RSAKeyTransport), orNull(v.ROBOT.Vulnerable), orNull(v.Renegotiation.ClientInitiated),
		orNull(v.Poodle.FallbackSCSV), orNull(a.SessionIDResumption.Supported), orNull(a.SessionTicketResumption.Supported))
}

func orNull(b *bool) string {
	if b == nil {
		return "null"
	}
	return strconv.FormatBool(*b)
}

// TestRealChecks: Heartbleed, ROBOT, client-initiated renegotiation,
// TLS_FALLBACK_SCSV and session resumption against OpenSSL's s_server
// and GnuTLS's gnutls-serv. Neither is vulnerable to Heartbleed
// (OpenSSL 3 has no heartbeats; GnuTLS checks the length) nor to ROBOT
// (both answer every malformed premaster secret alike); the vulnerable
// side of those two is tested against raw responders (checks_test.go),
// as no vulnerable build is packaged. peer is what testssl.sh 3.0.8
// (-H -BB -R -Z -S) said of the same configuration when run by hand
// (sslscan or openssl s_client where testssl could not judge);
// bench/tlsscan.sh prints testssl's and sslscan's verdicts live.
func TestRealChecks(t *testing.T) {
	f := needRealServers(t)
	tests := []struct {
		name   string
		server serverArgs
		want   string
		peer   string
	}{
		{
			name:   "openssl defaults (TLS 1.2, 1.3)",
			server: f.sServer(),
			want:   "heartbeat=false heartbleed=false rsaKeyTransport=true robot=false clientRenegotiation=false fallbackScsv=true sessionId=true ticket=true",
			peer: "testssl: Heartbleed not vulnerable, no heartbeat extension; ROBOT not vulnerable; Secure Client-Initiated Renegotiation " +
				"not vulnerable; TLS_FALLBACK_SCSV no fallback possible, no protocol below TLS 1.2 offered; resumption tickets yes, ID yes",
		},
		{
			name:   "openssl -client_renegotiation",
			server: f.sServer("-client_renegotiation"),
			want:   "heartbeat=false heartbleed=false rsaKeyTransport=true robot=false clientRenegotiation=true fallbackScsv=true sessionId=true ticket=true",
			peer:   "testssl: Secure Client-Initiated Renegotiation VULNERABLE (NOT ok), potential DoS threat",
		},
		{
			name:   "openssl -client_renegotiation, TLS 1.2 ChaCha20-Poly1305 only",
			server: f.sServer("-client_renegotiation", "-tls1_2", "-cipher", "ECDHE-RSA-CHACHA20-POLY1305"),
			want:   "heartbeat=false heartbleed=false rsaKeyTransport=false robot=false clientRenegotiation=true fallbackScsv=null sessionId=true ticket=true",
			peer:   "testssl: Secure Client-Initiated Renegotiation VULNERABLE (NOT ok), potential DoS threat",
		},
		{
			name:   "openssl -client_renegotiation, TLS 1.0 AES-CBC only (no AES-GCM, as the NSS server of the issue)",
			server: f.sServer("-client_renegotiation", "-tls1", "-cipher", "ECDHE-RSA-AES128-SHA:AES256-SHA:@SECLEVEL=0"),
			want:   "heartbeat=false heartbleed=false rsaKeyTransport=true robot=false clientRenegotiation=true fallbackScsv=null sessionId=true ticket=true",
			peer:   "testssl: Secure Client-Initiated Renegotiation VULNERABLE (NOT ok), potential DoS threat",
		},
		{
			name:   "openssl TLS 1.0–1.2, RSA key transport only, no tickets",
			server: f.sServer("-no_tls1_3", "-cipher", "AES128-SHA:AES256-GCM-SHA384:@SECLEVEL=0", "-no_ticket"),
			want:   "heartbeat=false heartbleed=false rsaKeyTransport=true robot=false clientRenegotiation=false fallbackScsv=true sessionId=true ticket=false",
			peer:   "testssl: ROBOT not vulnerable; TLS_FALLBACK_SCSV supported; resumption tickets no, ID yes",
		},
		{
			name:   "openssl without session cache or tickets",
			server: f.sServer("-no_ticket", "-no_cache"),
			want:   "heartbeat=false heartbleed=false rsaKeyTransport=true robot=false clientRenegotiation=false fallbackScsv=true sessionId=false ticket=false",
			peer:   "testssl: resumption tickets no, ID no",
		},
		{
			name:   "openssl TLS 1.2 only",
			server: f.sServer("-tls1_2"),
			want:   "heartbeat=false heartbleed=false rsaKeyTransport=true robot=false clientRenegotiation=false fallbackScsv=null sessionId=true ticket=true",
			peer:   "testssl: TLS_FALLBACK_SCSV no fallback possible, no protocol below TLS 1.2 offered; resumption tickets yes, ID yes",
		},
		{
			name:   "gnutls --heartbeat",
			server: f.gnutlsServ("--heartbeat"),
			want:   "heartbeat=true heartbleed=false rsaKeyTransport=true robot=false clientRenegotiation=true fallbackScsv=true sessionId=true ticket=true",
			peer: "testssl: Heartbleed not vulnerable; ROBOT not vulnerable; Secure Client-Initiated Renegotiation VULNERABLE, potential " +
				"DoS threat; TLS_FALLBACK_SCSV no protocol below TLS 1.2 offered (its OpenSSL 3 speaks no TLS 1.1 here; sslscan: " +
				"Server supports TLS Fallback SCSV); resumption ID not supported, tickets check failed (connect problem), where " +
				"openssl s_client -no_ticket -sess_in says Reused",
		},
		{
			name:   "gnutls without RFC 5746 (insecure renegotiation)",
			server: f.gnutlsServ("--priority", "NORMAL:%DISABLE_SAFE_RENEGOTIATION"),
			want:   "heartbeat=false heartbleed=false rsaKeyTransport=true robot=false clientRenegotiation=true fallbackScsv=true sessionId=true ticket=true",
			peer:   "sslscan: Insecure session renegotiation supported",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := f.scan(t, tt.server)
			got := checkVerdicts(res)
			t.Logf("ours: %s; peer: %s", got, tt.peer)
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			reneg := res.Vulnerabilities.Renegotiation
			if reneg.Found() != (reneg.ClientInitiated != nil && *reneg.ClientInitiated) {
				t.Errorf("renegotiation: got %+v, want vulnerable exactly when client-initiated renegotiation is accepted", reneg)
			}
			secure := res.Advisory.SecureRenegotiation.Found()
			if reneg.Found() && strings.Contains(reneg.Evidence[0], "CVE-2009-3555") == secure {
				t.Errorf("renegotiation evidence %q with secureRenegotiation %v: want CVE-2009-3555 named exactly without RFC 5746", reneg.Evidence, secure)
			}
		})
	}
}

// TestRealNSSRenegotiation: NSS's selfserv (libnss3-tools) with only
// AES-CBC suites, the server of issue 26: client-initiated
// renegotiation was not tested there (the check needed AES-GCM) and read
// false; `openssl s_client` renegotiates ("RENEGOTIATING") and testssl
// says VULNERABLE.
func TestRealNSSRenegotiation(t *testing.T) {
	openssl := needTool(t, "openssl", "openssl")
	selfserv := needTool(t, "selfserv", "libnss3-tools")
	certutil := needTool(t, "certutil", "libnss3-tools")
	pk12util := needTool(t, "pk12util", "libnss3-tools")
	f := validPKI(t)
	db := filepath.Join(f.dir, "nssdb")
	p12 := filepath.Join(f.dir, "server.p12")
	if err := os.Mkdir(db, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{
		{certutil, "-N", "-d", "sql:" + db, "--empty-password"},
		{openssl, "pkcs12", "-export", "-in", f.leaf, "-inkey", f.key, "-certfile", f.inter, "-name", "server", "-out", p12, "-passout", "pass:"},
		{pk12util, "-i", p12, "-d", "sql:" + db, "-W", ""},
	} {
		if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v: %s", cmd, err, out)
		}
	}
	res := f.scan(t, func(port int) []string {
		return []string{selfserv, "-d", "sql:" + db, "-n", "server", "-p", strconv.Itoa(port), "-V", "tls1.0:tls1.2",
			"-c", ":C013:C014:002F"} // ECDHE-RSA-AES128-SHA, ECDHE-RSA-AES256-SHA, AES128-SHA
	})
	reneg := res.Vulnerabilities.Renegotiation
	t.Logf("ours: %s; %+v", checkVerdicts(res), reneg)
	if !reneg.Found() || reneg.ClientInitiated == nil || !*reneg.ClientInitiated {
		t.Errorf("renegotiation: got %+v, want vulnerable (client-initiated renegotiation accepted)", reneg)
	}
}
