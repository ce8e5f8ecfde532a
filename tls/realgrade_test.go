package tls

import (
	"strconv"
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
	openssl := needTool(t, "openssl", "openssl")
	gnutls := needTool(t, "gnutls-serv", "gnutls-bin")
	f := writePKI(t, testNow.AddDate(0, -1, 0), testNow.AddDate(0, 6, 0), testNow.AddDate(-1, 0, 0))
	sServer := f.sServer(openssl)
	tests := []struct {
		name   string
		server func(port int) []string
		grade  string
		peer   string
	}{
		{"openssl defaults", func(port int) []string { return sServer(port) }, "A", "testssl 3.2: A+ would need HSTS; A-"},
		{"openssl TLS 1.0-1.2", func(port int) []string { return sServer(port, "-no_tls1_3", "-cipher", "DEFAULT:@SECLEVEL=0") }, "B", ""},
		{"gnutls NORMAL", func(port int) []string {
			return []string{gnutls, "--port", strconv.Itoa(port), "--x509certfile", f.leaf, "--x509keyfile", f.key, "--quiet"}
		}, "T", "gnutls-serv sends the leaf alone: the chain is incomplete"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := scanRealServer(t, tt.server, f.rootPool)
			t.Logf("grade %s %q\n%s", res.Grade, res.GradeReasons, simLine(res))
			if res.Grade != tt.grade {
				t.Errorf("grade: got %s, want %s", res.Grade, tt.grade)
			}
		})
	}
}
