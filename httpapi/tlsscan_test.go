package httpapi_test

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/porttest"
)

var (
	uuidForm    = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	base36Form  = regexp.MustCompile(`^[0-9a-z]{32}$`)
	opensslTime = regexp.MustCompile(`^[A-Z][a-z]{2} [ 1-3][0-9] \d{2}:\d{2}:\d{2} \d{4} GMT$`)
)

// tlsServer starts a TLS 1.2–1.3 server with httptest's certificate
// (SANs example.com, *.example.com, 127.0.0.1, ::1) and returns its port and root pool.
func tlsServer(t *testing.T) (port int, roots *x509.CertPool) {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // every probe is a handshake left unfinished
	srv.StartTLS()
	t.Cleanup(srv.Close)
	roots = x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	return srv.Listener.Addr().(*net.TCPAddr).Port, roots
}

func keys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

func TestTLSScanShape(t *testing.T) {
	port, roots := tlsServer(t)
	api := apitest.New(t, apitest.Options{Config: sitediag.Config{RootCAs: roots}})
	api.DNS.Add(t, "example.com. 60 IN A 127.0.0.1")
	resp := api.Post(t, "/tlsscan", map[string]any{"url": fmt.Sprintf("https://example.com:%d/path", port)})
	meta, data := resp.WantSuccess(t)

	if got, want := keys(meta), []string{"probeTimeout", "test", "url"}; !slices.Equal(got, want) {
		t.Errorf("meta keys: got %v, want %v", got, want)
	}
	if meta["probeTimeout"] != 5.0 {
		t.Errorf("meta.probeTimeout: got %v, want the default, 5", meta["probeTimeout"])
	}
	if got, want := meta["url"], fmt.Sprintf("example.com:%d", port); got != want {
		t.Errorf("meta.url: got %v, want %v", got, want)
	}
	id := meta["test"].(map[string]any)["id"].(string)
	if !uuidForm.MatchString(id) || resp.Header.Get("X-Request-Id") != id {
		t.Errorf("meta.test.id %q (X-Request-Id %q), want the same UUID", id, resp.Header.Get("X-Request-Id"))
	}

	d := data.(map[string]any)
	if got, want := keys(d), []string{"advisory", "certificate", "cipherSuites", "clientCertificateCaNames", "clientCertificateRequested",
		"clientCertificateRequired", "clientSimulation", "grade", "gradeReasons", "partial", "protocols", "supportedGroups", "unfinished", "vulnerabilities"}; !slices.Equal(got, want) {
		t.Errorf("data keys: got %v, want %v", got, want)
	}
	wantProtocols := map[string]any{"ssl2": false, "ssl3": false, "tls10": false, "tls11": false, "tls12": true, "tls13": true}
	if got := d["protocols"].(map[string]any); !maps.Equal(got, wantProtocols) {
		t.Errorf("data.protocols: got %v, want %v", got, wantProtocols)
	}
	cert := d["certificate"].(map[string]any)
	if cert["commonName"] != "" { // httptest's certificate has no CN
		t.Errorf("commonName: got %v", cert["commonName"])
	}
	if got, want := cert["subjectAltName"], "DNS:example.com, DNS:*.example.com, IP Address:127.0.0.1, IP Address:::1"; got != want {
		t.Errorf("subjectAltName: got %v, want %v", got, want)
	}
	issuer := cert["issuer"].(map[string]any)
	if got, want := issuer, map[string]any{"country": "", "organization": "Acme Co", "commonName": ""}; !maps.Equal(got, want) {
		t.Errorf("issuer: got %v, want %v", got, want)
	}
	if exp, _ := cert["expiry"].(string); !opensslTime.MatchString(exp) {
		t.Errorf("expiry: got %q, want OpenSSL's text form", exp)
	}
	if cert["trusted"] != true || cert["hostnameMatches"] != true || cert["authorizationError"] != nil {
		t.Errorf("got trusted %v hostnameMatches %v authorizationError %v", cert["trusted"], cert["hostnameMatches"], cert["authorizationError"])
	}
	vulns := d["vulnerabilities"].(map[string]any)
	if got, want := keys(vulns), []string{"anonymousCipher", "beast", "crime", "drown", "freak", "heartbleed", "logjam", "nullCipher",
		"poodle", "rc4", "renegotiation", "robot", "sweet32"}; !slices.Equal(got, want) {
		t.Errorf("vulnerabilities keys: got %v, want %v", got, want)
	}
	for name, want := range map[string][]string{
		"heartbleed":    {"evidence", "heartbeat", "vulnerable"},
		"robot":         {"evidence", "rsaKeyTransport", "vulnerable"},
		"renegotiation": {"clientInitiated", "evidence", "vulnerable"},
		"poodle":        {"evidence", "fallbackScsv", "vulnerable"},
	} {
		if got := keys(vulns[name].(map[string]any)); !slices.Equal(got, want) {
			t.Errorf("vulnerabilities.%s keys: got %v, want %v", name, got, want)
		}
	}
	if got, want := keys(d["advisory"].(map[string]any)), []string{"ocspStapling", "postQuantum", "secureRenegotiation",
		"sessionIdResumption", "sessionTicketResumption"}; !slices.Equal(got, want) {
		t.Errorf("advisory keys: got %v, want %v", got, want)
	}
	if d["partial"] != false || !maps.EqualFunc(d["unfinished"].(map[string]any),
		map[string]any{"protocols": nil, "cipherSuites": nil, "checks": nil}, func(v, _ any) bool { return len(v.([]any)) == 0 }) {
		t.Errorf("got partial %v, unfinished %v; want false and three empty lists", d["partial"], d["unfinished"])
	}
	if suites := d["cipherSuites"].(map[string]any)["tls13"].(map[string]any)["suites"].([]any); len(suites) != 3 {
		t.Errorf("cipherSuites.tls13: got %v, want crypto/tls's three", suites)
	}
}

func TestTLSScanErrors(t *testing.T) {
	closedPort := porttest.Closed(t)
	silentPort := porttest.Listen(t, func(c net.Conn) { io.Copy(io.Discard, c) }).Port

	tests := []struct {
		name   string
		config sitediag.Config
		url    any
		status int
		code   sitediag.Code
	}{
		{"missing url", sitediag.Config{}, "", 400, sitediag.CodeInvalidURL},
		{"not a URL", sitediag.Config{}, "ftp://site.test", 400, sitediag.CodeInvalidURL},
		{"denied address", sitediag.Config{}, "https://10.0.0.1", 403, sitediag.CodeTargetNotAllowed},
		{"name that does not resolve", sitediag.Config{}, "https://nowhere.test", 422, sitediag.CodeTLSHandshakeFailed},
		{"closed port", sitediag.Config{}, fmt.Sprintf("https://site.test:%d", closedPort), 422, sitediag.CodeTLSHandshakeFailed},
		{"out of time", sitediag.Config{Timeout: 300 * time.Millisecond}, fmt.Sprintf("https://site.test:%d", silentPort), 500, sitediag.CodeTLSScanFailed},
		{"probe timeout over 30 s", sitediag.Config{}, "https://site.test", 400, sitediag.CodeInvalidParameters},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := apitest.New(t, apitest.Options{Config: tt.config})
			api.DNS.Add(t, "site.test. 60 IN A 127.0.0.1")
			body := map[string]any{"url": tt.url}
			if tt.code == sitediag.CodeInvalidParameters {
				body["probeTimeout"] = 31
			}
			resp := api.Post(t, "/tlsscan", body)
			resp.WantError(t, tt.status, tt.code)
			if id := resp.Header.Get("X-Request-Id"); !uuidForm.MatchString(id) {
				t.Errorf("X-Request-Id: got %q, want a UUID", id)
			}
		})
	}
}

func TestTestIDFormByRoute(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	for path, form := range map[string]*regexp.Regexp{"/tlsscan": uuidForm, "/up": base36Form, "/redirectcheck": base36Form, "/nowhere": base36Form} {
		resp := api.Post(t, path, map[string]any{"url": ""})
		if id := resp.Header.Get("X-Request-Id"); !form.MatchString(id) {
			t.Errorf("%s: X-Request-Id %q does not match %s", path, id, form)
		}
	}
}

// A server slower than the operation limit allows to finish: 200 with
// what was found, partial, and a message saying so; probeTimeout is
// echoed.
func TestTLSScanPartial(t *testing.T) {
	port, _ := tlsServer(t)
	slow := porttest.Listen(t, func(c net.Conn) { // delays every connection to the TLS server by 300 ms
		time.Sleep(300 * time.Millisecond)
		up, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			return
		}
		defer up.Close()
		go io.Copy(up, c)
		io.Copy(c, up)
	})
	api := apitest.New(t, apitest.Options{Config: sitediag.Config{Timeout: 1500 * time.Millisecond}})
	api.DNS.Add(t, "example.com. 60 IN A 127.0.0.1")
	resp := api.Post(t, "/tlsscan", map[string]any{"url": fmt.Sprintf("https://example.com:%d", slow.Port), "probeTimeout": 2.5})
	meta, data := resp.WantSuccess(t)
	d := data.(map[string]any)
	if meta["probeTimeout"] != 2.5 || d["partial"] != true || resp.Envelope["message"] == nil {
		t.Errorf("got meta.probeTimeout %v, partial %v, message %v; want 2.5, true, a message", meta["probeTimeout"], d["partial"], resp.Envelope["message"])
	}
	if p := d["protocols"].(map[string]any); p["tls12"] != true || p["tls13"] != true {
		t.Errorf("protocols: got %v, want TLS 1.2 and 1.3 found by the deadline", p)
	}
	t.Logf("message %q, unfinished %v", resp.Envelope["message"], d["unfinished"])
}
