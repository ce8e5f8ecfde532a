package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"image"
	_ "image/jpeg"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/certtest"
	"github.com/sitediag/sitediag/internal/dnstest"
	"github.com/sitediag/sitediag/internal/exampletest"
)

// TestBinary builds the command and runs it against local fixtures:
// shop.test over TLS with a certificate 5 days from expiry and a broken
// link, resolved by a local DNS server, loopback allowed by flag.
func TestBinary(t *testing.T) {
	bin := exampletest.Build(t)
	dns := dnstest.Start(t)
	dns.Add(t, "shop.test. 60 IN A 127.0.0.1", "shop.test. 60 IN MX 10 mail.shop.test.", "b.test. 60 IN A 127.0.0.1")
	site := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/unavailable":
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		case "/missing":
			http.NotFound(w, r)
		case "/clean":
			io.WriteString(w, `<!doctype html><a href="/">home</a>`)
		case "/article":
			io.WriteString(w, `<!doctype html><html><head><title>Lanes</title></head><body><article><h1>New cycle lanes</h1>`+
				`<p>The council approved fourteen kilometres of protected cycle lanes on Tuesday, after a year of consultation.</p>`+
				`<p>Work starts in spring and should end before the winter.</p></article></body></html>`)
		default:
			io.WriteString(w, `<!doctype html><a href="/clean">clean</a><a href="/missing">missing</a>`)
		}
	}))
	site.Config.ErrorLog = log.New(io.Discard, "", 0)
	site.TLS = &tls.Config{Certificates: []tls.Certificate{certtest.SelfSigned(t, pkix.Name{CommonName: "shop.test"}, 5*24*time.Hour-time.Minute)}}
	site.StartTLS()
	defer site.Close()
	shop := "https://shop.test:" + site.URL[strings.LastIndex(site.URL, ":")+1:]
	config := []string{"--dns-servers", dns.Addr, "--allow-networks", "127.0.0.1/32"}

	port := site.URL[strings.LastIndex(site.URL, ":")+1:]
	for _, tc := range []struct {
		name     string
		args     []string
		stdin    string
		wantExit int
		stdout   []string
		stderr   string
	}{
		{"up", []string{"up", shop}, "", 0, []string{"reachable  yes", "status     200 OK"}, ""},
		{"flags after the target", []string{"up", shop, "--json"}, "", 0, []string{`"statusCode": 200`, `"operation": "up"`, `"followRedirect": true`}, ""},
		{"up on a 503 is a finding", []string{"up", shop + "/unavailable"}, "", 1, []string{"FINDING: the site answers HTTP 503"}, ""},
		{"targets from stdin as JSON lines, two at once", []string{"up", "-l", "-", "-c", "2", "--jsonl"}, "https://shop.test:" + port + "\n# a comment\nhttps://b.test:" + port + "\n", 0,
			[]string{`"target":"https://shop.test:` + port + `"`, `"target":"https://b.test:` + port + `"`}, ""},
		{"dns MX, a row a record", []string{"dns", "shop.test", "--types", "mx"}, "", 0, []string{"MX    10 mail.shop.test"}, ""},
		{"broken link is a finding", []string{"brokenlink", shop}, "", 1,
			[]string{"404  " + shop + "/missing", "FINDING: 1 broken link(s)"}, ""},
		{"no broken link", []string{"brokenlink", shop + "/clean"}, "", 0, []string{"200  " + shop + "/"}, ""},
		{"certificate expiring is a finding", []string{"tlsscan", strings.TrimPrefix(shop, "https://")}, "", 1,
			[]string{"TLS 1.3   yes", "SSL 3.0   no", "FINDING: the certificate expires in 4 days", "FINDING: the certificate is not trusted"}, ""},
		{"refused target is one error line and a hint", []string{"up", "http://169.254.169.254/"}, "", 2, nil,
			"sitediag up: http://169.254.169.254/: TARGET_NOT_ALLOWED: the target is not allowed\nhint: the target is on a private or special network"},
		{"an error with --json is JSON on stderr", []string{"up", "http://169.254.169.254/", "--json"}, "", 2, nil, `"code": "TARGET_NOT_ALLOWED"`},
		{"an option out of range names the member", []string{"ping", "shop.test", "--count", "99"}, "", 2, nil, "INVALID_PARAMETERS: count: must be between 1 and 16"},
		{"webscrape markdown", []string{"webscrape", shop + "/article", "--format", "markdown", "--render-js=false"}, "", 0,
			[]string{"# New cycle lanes", "fourteen kilometres"}, ""},
		{"unknown command", []string{"nope", shop}, "", 2, nil, `unknown command "nope"`},
		{"missing argument", []string{"up"}, "", 2, nil, "usage: sitediag up"},
		{"bare is usage on stderr", nil, "", 2, nil, "usage: sitediag <command>"},
		{"version", []string{"--version"}, "", 0, []string{"sitediag"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if len(args) > 1 {
				args = append(append([]string{args[0]}, config...), args[1:]...)
			}
			cmd := exec.Command(bin, args...)
			cmd.Stdin = strings.NewReader(tc.stdin)
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
			if len(tc.args) > 2 && tc.args[2] == "--json" {
				printed := stdout.Bytes()
				if tc.wantExit == 2 {
					printed = stderr.Bytes()
				}
				if !json.Valid(printed) {
					t.Errorf("--json printed no JSON:\n%s", printed)
				}
			}
		})
	}
}

// TestOutputFile: -o FILE gets one JSON object per target while the
// tables go to stdout.
func TestOutputFile(t *testing.T) {
	bin := exampletest.Build(t)
	dns := dnstest.Start(t)
	dns.Add(t, "a.test. 60 IN A 127.0.0.1", "b.test. 60 IN A 127.0.0.1")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer site.Close()
	port := site.URL[strings.LastIndex(site.URL, ":")+1:]
	file := t.TempDir() + "/out.jsonl"
	out, err := exec.Command(bin, "up", "-o", file, "http://a.test:"+port, "http://b.test:"+port,
		"--dns-servers", dns.Addr, "--allow-networks", "127.0.0.1/32").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "== http://a.test:"+port) || !strings.Contains(string(out), "reachable  yes") {
		t.Errorf("stdout:\n%s", out)
	}
	lines, _ := os.ReadFile(file)
	var n int
	for _, line := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
		var rec struct {
			Target string
			OK     bool
			Data   struct{ StatusCode int }
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil || !rec.OK || rec.Data.StatusCode != 200 {
			t.Errorf("line %q: %v", line, err)
		}
		n++
	}
	if n != 2 {
		t.Errorf("%d lines, want 2:\n%s", n, lines)
	}
}

// TestScreenshotFlags takes a JPEG screenshot at a viewport width given
// by flag in Chromium: the file is named after the target and --type.
func TestScreenshotFlags(t *testing.T) {
	chrome := exampletest.Chromium(t)
	bin := exampletest.Build(t)
	dns := dnstest.Start(t)
	dns.Add(t, "page.test. 60 IN A 127.0.0.1")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<!doctype html><body style="background:#c00">hello</body>`)
	}))
	defer site.Close()
	dir := t.TempDir()
	target := "http://page.test:" + site.URL[strings.LastIndex(site.URL, ":")+1:]
	cmd := exec.Command(bin, "screenshot", target, "--viewport-width", "1024", "--type", "jpeg", "--output-dir", dir,
		"--dns-servers", dns.Addr, "--allow-networks", "127.0.0.1/32", "--chrome-path", chrome, "--json")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rec struct {
		Files []string
		Meta  struct {
			ViewportWidth int    `json:"viewportWidth"`
			Type          string `json:"type"`
		}
	}
	if err := json.Unmarshal(out, &rec); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rec.Files) != 1 || !strings.HasSuffix(rec.Files[0], ".jpeg") || rec.Meta.ViewportWidth != 1024 || rec.Meta.Type != "jpeg" {
		t.Fatalf("got %s", out)
	}
	f, err := os.Open(rec.Files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, format, err := image.Decode(f)
	if err != nil || format != "jpeg" || img.Bounds().Dx() != 1024 {
		t.Fatalf("%s: %v %s %v", rec.Files[0], err, format, img.Bounds())
	}
}

// TestLighthouseFromAnywhere audits a local page with the CLI run in a
// folder of its own, with no Lighthouse setting: the set-up's folder is
// found whatever the working directory, and the report is saved there.
func TestLighthouseFromAnywhere(t *testing.T) {
	chrome := exampletest.Lighthouse(t)
	bin := exampletest.Build(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Audit me</title>
			<meta name="description" content="A fixture."></head><body><h1>Audit me</h1></body></html>`)
	}))
	defer site.Close()
	dir := t.TempDir()
	cmd := exec.Command(bin, "lighthouse", site.URL+"/", "--parameters", "--only-categories=seo",
		"--allow-networks", "127.0.0.1/32", "--chrome-path", chrome, "--jsonl", "--deadline", "5m")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SITEDIAG_LIGHTHOUSE_DIR=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rec struct {
		OK    bool
		Data  struct{ Scores struct{ SEO *int } }
		Files []string
	}
	if err := json.Unmarshal(out, &rec); err != nil || !rec.OK || rec.Data.Scores.SEO == nil || len(rec.Files) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, rec.Files[0])); err != nil {
		t.Errorf("the report is not in the working folder: %v", err)
	}
}
