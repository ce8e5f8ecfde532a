package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/exampletest"
	"github.com/sitediag/sitediag/internal/redistest"
	"github.com/sitediag/sitediag/internal/s3test"
)

// The keys: work for the diagnoses, burst for the shared rate limit
// (one per try, see spendBurst).
const (
	workKey  = "sd_work"
	burstKey = "sd_burst"
)

// burstKeys are the keys spendBurst may use, one a round.
var burstKeys = []string{burstKey + "1", burstKey + "2", burstKey + "3"}

// spendBurst sends 40 requests of key at once, 20 to each replica, and
// returns how many passed, per replica, and how long they took.
func spendBurst(t *testing.T, key string, replicas []*replica) (map[string]int, time.Duration) {
	t.Helper()
	var mu sync.Mutex
	passed := map[string]int{}
	var wg sync.WaitGroup
	began := time.Now()
	for i := range 40 {
		r := replicas[i%2]
		wg.Go(func() {
			if status, _, _ := r.do(t, "GET", "/health", key, ""); status == 200 {
				mu.Lock()
				passed[r.name]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return passed, time.Since(began)
}

// replica is one running server process.
type replica struct {
	name string
	base string // http://127.0.0.1:port
	proc *exampletest.Process
}

// startReplica runs the server binary with args and with env added to
// this process's environment, and waits for its listen address.
func startReplica(t *testing.T, name, bin string, args, env []string) *replica {
	t.Helper()
	p := exampletest.Start(t, bin, env, args...)
	addr := p.WaitFor(t, regexp.MustCompile(`msg=listening addr=(\S+)`), 30*time.Second)[1]
	return &replica{name: name, base: "http://" + addr, proc: p}
}

// do sends one request with key (none when empty) and returns the status,
// the headers and the body.
func (r *replica) do(t *testing.T, method, p, key, body string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, r.base+p, strings.NewReader(body))
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s %s: %v", r.name, method, p, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// post sends a keyed operation with the work key, waiting out 429s (the
// work key shares the low rate limit of this test), and decodes the
// envelope.
func (r *replica) post(t *testing.T, p, body string) map[string]any {
	t.Helper()
	for range 10 {
		status, h, b := r.do(t, "POST", p, workKey, body)
		if status == 429 {
			s, _ := strconv.Atoi(h.Get("Retry-After"))
			time.Sleep(time.Duration(s) * time.Second)
			continue
		}
		var env map[string]any
		if err := json.Unmarshal(b, &env); err != nil || status != 200 {
			t.Fatalf("%s POST %s: %d %s", r.name, p, status, b)
		}
		return env
	}
	t.Fatalf("%s POST %s: rate limited 10 times", r.name, p)
	return nil
}

// services returns /health/service's message and each service's status
// and message by name.
func (r *replica) services(t *testing.T) (string, map[string][2]string) {
	t.Helper()
	for range 10 {
		status, h, b := r.do(t, "GET", "/health/service", workKey, "")
		if status == 429 {
			s, _ := strconv.Atoi(h.Get("Retry-After"))
			time.Sleep(time.Duration(s) * time.Second)
			continue
		}
		var body struct {
			Message  string
			Services []struct{ Name, Status, Message string }
		}
		if err := json.Unmarshal(b, &body); err != nil || status != 200 {
			t.Fatalf("%s /health/service: %d %s", r.name, status, b)
		}
		out := map[string][2]string{}
		for _, s := range body.Services {
			out[s.Name] = [2]string{s.Status, s.Message}
		}
		return body.Message, out
	}
	t.Fatalf("%s /health/service: rate limited 10 times", r.name)
	return "", nil
}

// deployment reads the worked example of docs/deployment.md, the systemd unit
// examples/deploy/sitediag@.service and its environment file
// sitediag.env: it returns the unit's ExecStart arguments (instance
// port 0, the data directory under dataDir) and the file's settings with
// the per-site values replaced by perSite.
func deployment(t *testing.T, dataDir string, perSite map[string]string) (args, env []string) {
	t.Helper()
	unit, err := os.ReadFile("../deploy/sitediag@.service")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(unit), "\n") {
		if rest, ok := strings.CutPrefix(line, "ExecStart="); ok {
			fields := strings.Fields(strings.ReplaceAll(rest, "%i", "0"))
			args = fields[1:]
		}
	}
	for i := range args {
		if i > 0 && args[i-1] == "-data-dir" {
			args[i] = dataDir
		}
	}
	if len(args) == 0 {
		t.Fatal("sitediag@.service has no ExecStart")
	}
	file, err := os.ReadFile("../deploy/sitediag.env")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(file), "\n") {
		name, value, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		if v, ok := perSite[name]; ok {
			value, seen[name] = v, true
		}
		env = append(env, name+"="+value)
	}
	for name := range perSite {
		if !seen[name] {
			t.Fatalf("sitediag.env does not set %s", name)
		}
	}
	return args, env
}

// artifactPath is the /artifacts/<name> path of an artifact link.
func artifactPath(t *testing.T, link any) string {
	t.Helper()
	s, _ := link.(string)
	i := strings.Index(s, "/artifacts/")
	if i < 0 {
		t.Fatalf("artifact link %q has no /artifacts/", link)
	}
	return s[i:]
}

// TestTwoReplicas runs two server processes that share one versitygw
// bucket and one redis-server, as two replicas behind a load balancer:
// an artifact written through one is served by the other, one key's
// rate limit holds across both, a brand record cached by one is a cache
// hit on the other; with Redis killed both report it down in
// /health/service and go on serving (fail open), and nothing in the
// bucket is lost.
func TestTwoReplicas(t *testing.T) {
	exampletest.Chromium(t)
	s3 := s3test.Start(t)
	rds := redistest.Start(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Replica Test Co</title>
<meta name="theme-color" content="#0a5cff"><meta name="description" content="A fixture for two replicas.">
<style>body{background:#fff;color:#111;font-family:serif} a,button{color:#fff;background:#0a5cff}</style></head>
<body><h1>Replica Test Co</h1><a href="/about">About</a><button>Buy</button></body></html>`)
	}))
	defer site.Close()

	bin := exampletest.Build(t)
	perSite := map[string]string{
		"SITEDIAG_API_KEYS":      workKey + "," + burstKey + "," + strings.Join(burstKeys, ","),
		"SITEDIAG_PUBLIC_URL":    "",
		"SITEDIAG_ARTIFACTS_URL": s3.URL(),
		"SITEDIAG_REDIS_URL":     rds.URL(),
	}
	for _, kv := range s3.Env() {
		name, value, _ := strings.Cut(kv, "=")
		if name != "AWS_REGION" {
			perSite[name] = value
		}
	}
	var replicas []*replica
	for i := range 2 {
		args, env := deployment(t, t.TempDir(), perSite)
		// The fixture site is on loopback, which the SSRF policy refuses
		// unless exempted.
		env = append(env, "SITEDIAG_ALLOW_NETWORKS=127.0.0.1/32")
		replicas = append(replicas, startReplica(t, fmt.Sprintf("replica %d", i+1), bin, args, env))
	}
	r1, r2 := replicas[0], replicas[1]

	// An artifact written through replica 1 is served by replica 2.
	shot := r1.post(t, "/screenshot", `{"url":"`+site.URL+`/"}`)
	shotPath := artifactPath(t, shot["data"])
	status, h, png := r2.do(t, "GET", shotPath, "", "")
	if status != 200 || h.Get("Content-Type") != "image/png" || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("replica 2 GET %s: %d %s, %d bytes; want 200 and a PNG", shotPath, status, h.Get("Content-Type"), len(png))
	}
	inBucket := filepath.Join(s3.Root, s3.Bucket, "artifacts", path.Base(shotPath))
	if b, err := os.ReadFile(inBucket); err != nil || !bytes.Equal(b, png) {
		t.Fatalf("the bucket's %s: %v; want the bytes replica 2 served", inBucket, err)
	}

	// One key's allowance (10/s, burst 20) holds across both: 40
	// requests at once, half to each replica, get at most the burst plus
	// what refilled meanwhile (each replica on its own would let 20
	// through, 40 in all). A round too slow to tell (a loaded machine)
	// is tried again with a fresh key.
	judged := false
	for _, key := range burstKeys {
		passed, took := spendBurst(t, key, replicas)
		limit := 20 + int(10*took.Seconds()) + 1
		total := passed[r1.name] + passed[r2.name]
		t.Logf("key %s: %d of 40 requests passed in %v (%v), at most %d allowed", key, total, took, passed, limit)
		if limit >= 40 {
			continue
		}
		judged = true
		if total > limit || total < 20 {
			t.Errorf("key across two replicas: %d of 40 passed in %v (%v); want 20 to %d, shared", total, took, passed, limit)
		}
		break
	}
	if !judged {
		t.Errorf("every round of 40 requests took too long to tell a shared limit from two")
	}

	// A brand record cached by replica 1 is a cache hit on replica 2.
	first := r1.post(t, "/brand", `{"url":"`+site.URL+`/"}`)
	second := r2.post(t, "/brand", `{"url":"`+site.URL+`/"}`)
	m1, _ := first["meta"].(map[string]any)
	m2, _ := second["meta"].(map[string]any)
	if m1["cached"] != false || m2["cached"] != true || m1["lastUpdated"] != m2["lastUpdated"] {
		t.Errorf("brand: replica 1 cached=%v at %v, replica 2 cached=%v at %v; want a miss then a hit of the same record",
			m1["cached"], m1["lastUpdated"], m2["cached"], m2["lastUpdated"])
	}

	for _, r := range []*replica{r1, r2} {
		_, svc := r.services(t)
		if svc["redis"][0] != "healthy" || svc["artifactStore"] != [2]string{"healthy", "writable: s3 bucket " + s3.Bucket} {
			t.Errorf("%s before the kill: redis %v, artifactStore %v; want both healthy, the bucket named", r.name, svc["redis"], svc["artifactStore"])
		}
	}

	// Redis dies: health says so, and the replicas fail open.
	rds.Kill()
	for _, r := range []*replica{r1, r2} {
		msg, svc := r.services(t)
		if svc["redis"][0] != "down" || !strings.Contains(svc["redis"][1], "each replica limits keys on its own") ||
			msg != "API is up; some services are not healthy" {
			t.Errorf("%s with Redis killed: %q, redis %v; want redis down with the fallback explained", r.name, msg, svc["redis"])
		}
	}
	began := time.Now()
	if status, _, _ := r2.do(t, "GET", "/health", burstKey, ""); status != 200 {
		t.Errorf("burst key on replica 2 with Redis killed: %d, want 200 (its own limiter has not seen the key)", status)
	}
	t.Logf("a keyed request with Redis killed took %v (limiter falls back to the replica's own)", time.Since(began))
	again := r2.post(t, "/brand", `{"url":"`+site.URL+`/"}`)
	if m, _ := again["meta"].(map[string]any); m["cached"] != false {
		t.Errorf("brand on replica 2 with Redis killed: cached=%v, want a fresh extraction", m["cached"])
	}

	// Nothing in the bucket is lost: the first artifact is still served,
	// and a new one written through replica 2 is served by replica 1.
	if status, _, b := r1.do(t, "GET", shotPath, "", ""); status != 200 || !bytes.Equal(b, png) {
		t.Errorf("replica 1 GET %s with Redis killed: %d, %d bytes; want the same PNG", shotPath, status, len(b))
	}
	shot2 := r2.post(t, "/screenshot", `{"url":"`+site.URL+`/"}`)
	if status, _, b := r1.do(t, "GET", artifactPath(t, shot2["data"]), "", ""); status != 200 || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("replica 1 GET the artifact replica 2 wrote with Redis killed: %d, %d bytes", status, len(b))
	}

	r1.proc.Stop(t, 30*time.Second)
	r2.proc.Stop(t, 30*time.Second)
}
