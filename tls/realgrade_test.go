package tls

import (
	"strings"
	"testing"
)

// simLine sums the client simulation up: "client=TLSv1.3/TLS_AES_…/X25519".
func simLine(r *Result) string {
	var out []string
	for _, c := range r.ClientSimulation {
		if c.Protocol == nil {
			out = append(out, c.Client+"=FAIL("+c.Error+")")
			continue
		}
		out = append(out, c.Client+"="+*c.Protocol+"/"+*c.Suite+"/"+deref(c.Group))
	}
	return strings.Join(out, "\n")
}

// TestRealGrade: the grade and client simulation on s_server and
// gnutls-serv configurations, beside testssl 3.2's rating and -c
// output on the same configuration (docs/tls.md has the full table).
func TestRealGrade(t *testing.T) {
	f := needRealServers(t)
	tests := []struct {
		name   string
		server serverArgs
		grade  string
		sim    string // what Chromium 156 negotiates, or "fails"
		peer   string // testssl 3.2.3's rating of the same configuration
	}{
		{"openssl defaults", f.sServer(), "A", "TLSv1.3 TLS_AES_128_GCM_SHA256",
			"testssl: A+ (it does not require HSTS for A+; the guide does, and a TLS scan does not read it)"},
		{"openssl TLS 1.3 only", f.sServer("-tls1_3"), "A", "TLSv1.3 TLS_AES_128_GCM_SHA256", "testssl: A+"},
		{"openssl TLS 1.0-1.3 at security level 0", f.sServer("-cipher", "DEFAULT:@SECLEVEL=0"),
			"B", "TLSv1.3 TLS_AES_128_GCM_SHA256", "testssl: B (TLS 1.0 offered, TLS 1.1 offered)"},
		{"openssl DHE only, Oakley group 2",
			f.sServer("-dhparam", oakleyGroup2(t, f.dir), "-no_tls1_3", "-cipher", "DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-SHA:@SECLEVEL=0"),
			"B", "fails", "testssl: B (TLS 1.0, 1.1 offered); Chromium: no connection"},
		{"openssl TLS 1.0 only, AES-CBC", f.sServer("-tls1", "-cipher", "AES128-SHA:ECDHE-RSA-AES256-SHA:@SECLEVEL=0"),
			"C", "fails", "testssl: C (TLS 1.2 or 1.3 not offered)"},
		{"openssl RSA key transport only", f.sServer("-no_tls1_3", "-cipher", "AES128-SHA:AES256-GCM-SHA384:@SECLEVEL=0", "-no_ticket"),
			"B", "TLSv1.2 TLS_RSA_WITH_AES_256_GCM_SHA384", "testssl: B (forward secrecy not supported)"},
		{"gnutls NORMAL without the intermediate", f.gnutlsServ(), "T", "TLSv1.3 TLS_AES_128_GCM_SHA256", "the chain is incomplete: testssl T"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := f.scan(t, tt.server)
			t.Logf("grade %s %q\n%s", res.Grade, res.GradeReasons, simLine(res))
			if res.Grade != tt.grade {
				t.Errorf("grade: got %s, want %s (peer: %s)", res.Grade, tt.grade, tt.peer)
			}
			chromium := res.ClientSimulation[0]
			got := "fails"
			if chromium.Protocol != nil {
				got = *chromium.Protocol + " " + *chromium.Suite
			}
			if got != tt.sim {
				t.Errorf("%s: got %s, want %s", chromium.Client, got, tt.sim)
			}
		})
	}
}
