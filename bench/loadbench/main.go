// Command loadbench is the load driver of bench/load.sh: mixed
// operations against a running example server, on local targets it
// serves itself, with the server's memory and goroutines before and
// after.
//
// It serves, on 127.0.0.1, a page (for /up and /screenshot) and a
// crypto/tls server (for /tlsscan), runs one job of each operation and
// then the mix for a few seconds (-warmup) to warm the server up, and,
// once it has idled, takes its baseline (VmRSS from
// /proc/<pid>/status, go_goroutines from its metrics endpoint, the
// processes below it), then runs each operation from its own workers
// for the duration. It prints, per operation, p50 and p99 latency and the
// status counts (5xx by code), the 503s without Retry-After, the server's
// figures before, right after and once it has settled, and a verdict on
// the three goals: no 5xx caused by the service (503 BUSY, backpressure
// with Retry-After, is not), every 503 with Retry-After, and memory back
// within 10 % of the baseline.
//
// With -screenshots N it instead serves N screenshots from the -screenshot
// workers and compares the server's memory after the first
// -checkpoint of them with its memory at the end (bench/soak.sh):
// a server that leaks per job grows between the two.
//
//	loadbench -api http://127.0.0.1:8080 -key k -pid 1234 -metrics 127.0.0.1:9090
//	          [-duration 60s] [-warmup 5s] [-up 32] [-screenshot 8] [-tlsscan 4]
//	          [-screenshots 5000 -checkpoint 1000]
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sitediag/sitediag/bench/benchrow"
	"github.com/sitediag/sitediag/internal/procs"
)

// page is what /up and /screenshot load: text, styles and an inline SVG.
const page = `<!doctype html><html><head><title>Load</title><style>
body { font: 16px/1.5 sans-serif; margin: 0 auto; max-width: 960px; padding: 24px }
.card { border: 1px solid #ccc; border-radius: 8px; padding: 16px; margin: 16px 0 }
</style></head><body><h1>Load bench</h1>
<svg width="200" height="80"><rect width="200" height="80" fill="#036"/></svg>
<div class="card"><h2>One</h2><p>Lorem ipsum dolor sit amet.</p></div>
<div class="card"><h2>Two</h2><p>Consectetur adipiscing elit.</p></div>
</body></html>`

// settleFor bounds the wait for the server's memory to come back after
// the load.
const settleFor = 150 * time.Second

func main() {
	log.SetFlags(0)
	api := flag.String("api", "", "the server's base URL")
	key := flag.String("key", "", "an API key of the server")
	pid := flag.Int("pid", 0, "the server's process id")
	metrics := flag.String("metrics", "", "host:port of the server's metrics endpoint")
	duration := flag.Duration("duration", 60*time.Second, "how long the load runs")
	warmup := flag.Duration("warmup", 5*time.Second, "how long the same mix runs before the baseline is taken")
	upWorkers := flag.Int("up", 32, "concurrent /up callers")
	shotWorkers := flag.Int("screenshot", 8, "concurrent /screenshot callers")
	tlsWorkers := flag.Int("tlsscan", 4, "concurrent /tlsscan callers")
	soakServer := flag.String("soak", "", "the example server's binary: start it and soak every operation (see soak)")
	chrome := flag.String("chrome", "chromium", "the Chromium binary the soaked server uses")
	redis := flag.String("redis-server", "redis-server", "the redis-server binary the soak runs")
	rate := flag.Float64("rate", 1, "multiplies the soak's call rates")
	screenshots := flag.Int("screenshots", 0, "instead of the mix: this many /screenshot calls from the -screenshot workers, "+
		"the server's memory sampled after -checkpoint of them and at the end (bench/soak.sh)")
	checkpoint := flag.Int("checkpoint", 1000, "the -screenshots call count of the first memory sample")
	flag.Parse()
	if *soakServer != "" {
		soak(soakConfig{server: *soakServer, chrome: *chrome, redis: *redis, duration: *duration, rate: *rate})
		return
	}
	if *api == "" || *pid == 0 || *metrics == "" {
		log.Fatal("loadbench: -api, -pid and -metrics are required")
	}

	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, page)
	}))
	defer site.Close()
	tlsSite := httptest.NewUnstartedServer(http.NotFoundHandler())
	tlsSite.Config.ErrorLog = log.New(io.Discard, "", 0) // the scan's probes fail handshakes on purpose
	tlsSite.StartTLS()
	defer tlsSite.Close()

	server := &server{api: *api, key: *key, pid: *pid, metrics: "http://" + *metrics + "/metrics",
		http: &http.Client{Timeout: 3 * time.Minute, Transport: &http.Transport{
			MaxIdleConnsPerHost: *upWorkers + *shotWorkers + *tlsWorkers}}}
	ops := []*operation{
		{path: "/up", workers: *upWorkers, body: `{"url":"` + site.URL + `/"}`},
		{path: "/screenshot", workers: *shotWorkers, body: `{"url":"` + site.URL + `/"}`},
		{path: "/tlsscan", workers: *tlsWorkers, body: `{"url":"` + tlsSite.URL + `/"}`},
	}
	for _, op := range ops {
		if c := server.call(op); c.status != http.StatusOK {
			log.Fatalf("loadbench: warm-up %s: %d %s", op.path, c.status, c.code)
		}
	}
	if *screenshots > 0 {
		runSoak(server, ops[1], *checkpoint, *screenshots)
		return
	}
	// The baseline is the server warmed up by the same mix, idle: what a
	// run must come back to, its first-touch costs (code paged in, the
	// Go heap grown to its working size) paid.
	server.drive(ops, *warmup, func(*operation, outcome) {})
	time.Sleep(5 * time.Second)
	before, err := server.sample()
	if err != nil {
		log.Fatal(err)
	}

	fmt.Printf("load: %v of /up ×%d, /screenshot ×%d, /tlsscan ×%d against %s (%d cores), after %v of warm-up\n\n",
		*duration, *upWorkers, *shotWorkers, *tlsWorkers, *api, runtime.NumCPU(), *warmup)
	server.drive(ops, *duration, (*operation).record)
	time.Sleep(time.Second) // for the server to see the hang-ups
	right, err := server.sample()
	if err != nil {
		log.Fatal(err)
	}
	// While the server settles only its RSS is read, from /proc: a
	// metrics scrape a second would itself keep the server's heap busy.
	waited := time.Duration(0)
	for start, rss := time.Now(), right.rssKB; !(sample{rssKB: rss}).memoryBack(before) && waited < settleFor; waited = time.Since(start) {
		time.Sleep(time.Second)
		if rss, _, _, err = vmRSS(server.pid); err != nil {
			log.Fatal(err)
		}
	}
	settled, err := server.sample()
	if err != nil {
		log.Fatal(err)
	}

	fmt.Printf("%-12s %8s %9s %9s  %s\n", "operation", "calls", "p50", "p99", "statuses")
	var serviceErrors, noRetryAfter, calls, busy int
	for _, op := range ops {
		fmt.Printf("%-12s %8d %9s %9s  %s\n", op.path, len(op.latencies),
			quantile(op.latencies, 0.50), quantile(op.latencies, 0.99), op.statuses())
		serviceErrors += op.serviceErrors()
		noRetryAfter += op.noRetryAfter
		calls += len(op.latencies)
		busy += op.unavailable
	}
	fmt.Printf("503 without Retry-After: %d\n\n", noRetryAfter)
	fmt.Printf("%-22s %10s %22s %10s %11s %10s\n", "server", "RSS", "(anon + file)", "Go heap", "goroutines", "processes")
	for _, s := range []struct {
		name string
		sample
	}{{"before", before}, {"1 s after", right}, {fmt.Sprintf("after %.0f s idle", waited.Seconds()), settled}} {
		fmt.Printf("%-22s %7.1f MB (%6.1f MB + %6.1f MB) %7.1f MB %11d %10d\n", s.name, mb(s.rssKB), mb(s.anonKB), mb(s.fileKB),
			mb(s.heapKB), s.goroutines, s.procs)
	}
	fmt.Println()
	fmt.Printf("verdict: service-caused 5xx %d (goal 0) %s; 503 without Retry-After %d (goal 0) %s; "+
		"RSS %+.1f %% of baseline (goal within 10 %%) %s\n",
		serviceErrors, pass(serviceErrors == 0), noRetryAfter, pass(noRetryAfter == 0),
		100*(float64(settled.rssKB)/float64(before.rssKB)-1), pass(settled.memoryBack(before)))
	// The goals as rows of the benchmark table (issue 16).
	load := fmt.Sprintf("mixed load %v: ", *duration)
	benchrow.Emit(benchrow.Row{Operation: load + "service-caused 5xx", Ours: float64(serviceErrors), Peer: float64(calls),
		Unit: "calls", PeerName: "all calls", Ratio: float64(serviceErrors) / float64(max(calls, 1)), Goal: "<= 0", Runs: 1})
	benchrow.Emit(benchrow.Row{Operation: load + "503 without Retry-After", Ours: float64(noRetryAfter), Peer: float64(busy),
		Unit: "calls", PeerName: "all 503s", Ratio: float64(noRetryAfter) / float64(max(busy, 1)), Goal: "<= 0", Runs: 1})
	benchrow.Emit(benchrow.Row{Operation: load + "server RSS after", Ours: mb(settled.rssKB), Peer: mb(before.rssKB),
		Unit: "MB", PeerName: "itself before (warmed up)", Ratio: float64(settled.rssKB) / float64(before.rssKB), Goal: "<= 1.1", Runs: 1})
}

func mb(kb int) float64 { return float64(kb) / 1024 }

func pass(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// operation is one kind of call and what its calls gave.
type operation struct {
	path    string
	workers int
	body    string

	mu           sync.Mutex
	latencies    []time.Duration
	counts       map[string]int // "200", "503 BUSY", "error: …"
	unavailable  int            // 503s
	noRetryAfter int            // 503s without Retry-After
	details      []string       // of the first service-caused 5xx
}

// outcome is one call's result: the status (0 when the call failed),
// the envelope's code on an error, whether a Retry-After came with it.
type outcome struct {
	status     int
	code       string
	details    string
	retryAfter bool
	took       time.Duration
}

func (op *operation) record(c outcome) {
	op.mu.Lock()
	defer op.mu.Unlock()
	if op.counts == nil {
		op.counts = map[string]int{}
	}
	op.latencies = append(op.latencies, c.took)
	label := strconv.Itoa(c.status)
	switch {
	case c.status == 0:
		label = "error: " + c.code
	case c.status >= 500:
		label += " " + c.code
	}
	op.counts[label]++
	if c.status >= 500 && label != "503 BUSY" && len(op.details) < 5 {
		op.details = append(op.details, label+": "+c.details)
	}
	if c.status == http.StatusServiceUnavailable {
		op.unavailable++
		if !c.retryAfter {
			op.noRetryAfter++
		}
	}
}

// statuses lists the counts, most frequent first.
func (op *operation) statuses() string {
	labels := make([]string, 0, len(op.counts))
	for l := range op.counts {
		labels = append(labels, l)
	}
	slices.SortFunc(labels, func(a, b string) int { return op.counts[b] - op.counts[a] })
	var parts []string
	for _, l := range labels {
		parts = append(parts, fmt.Sprintf("%s ×%d", l, op.counts[l]))
	}
	return strings.Join(parts, ", ")
}

// serviceErrors counts the 5xx the service caused: every one but 503
// BUSY, which is backpressure, and calls that got no answer at all.
func (op *operation) serviceErrors() int {
	n := 0
	for l, c := range op.counts {
		if strings.HasPrefix(l, "5") && l != "503 BUSY" || strings.HasPrefix(l, "error: ") {
			n += c
		}
	}
	return n
}

func quantile(d []time.Duration, q float64) string {
	if len(d) == 0 {
		return "-"
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))].Round(time.Millisecond).String()
}

// drive calls every operation from its workers for d, handing each
// outcome to record, then hangs up its idle connections, as a client
// that is done does: the server's goroutines for them are not the
// server's to keep.
func (s *server) drive(ops []*operation, d time.Duration, record func(*operation, outcome)) {
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for _, op := range ops {
		for range op.workers {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					record(op, s.call(op))
				}
			})
		}
	}
	wg.Wait()
	s.http.CloseIdleConnections()
}

// server is the example server under load.
type server struct {
	api, key, metrics string
	pid               int
	http              *http.Client
}

func (s *server) call(op *operation) outcome {
	start := time.Now()
	req, err := http.NewRequest(http.MethodPost, s.api+op.path, strings.NewReader(op.body))
	if err != nil {
		log.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", s.key)
	resp, err := s.http.Do(req)
	if err != nil {
		return outcome{code: err.Error(), took: time.Since(start)}
	}
	defer resp.Body.Close()
	var env struct {
		Message string `json:"message"`
		Details string `json:"details"`
	}
	body, err := io.ReadAll(resp.Body)
	if err == nil {
		err = json.Unmarshal(body, &env)
	}
	c := outcome{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After") != "", took: time.Since(start)}
	if resp.StatusCode != http.StatusOK {
		c.code, c.details = env.Message, env.Details
	}
	if err != nil {
		c.code = "undecodable body"
	}
	return c
}

// sample is the server's resident memory, Go heap in use, goroutines
// and processes below it (the browser's) at one moment.
type sample struct {
	rssKB, anonKB, fileKB, heapKB, goroutines, procs int
}

// memoryBack reports whether s's RSS is within 10 % of base's.
func (s sample) memoryBack(base sample) bool { return s.rssKB <= base.rssKB*11/10 }

func (s *server) sample() (sample, error) {
	var out sample
	var err error
	if out.rssKB, out.anonKB, out.fileKB, err = vmRSS(s.pid); err != nil {
		return out, err
	}
	m, err := s.readMetrics("go_goroutines", "go_memstats_heap_inuse_bytes")
	if err != nil {
		return out, err
	}
	out.goroutines, out.heapKB = int(m["go_goroutines"]), int(m["go_memstats_heap_inuse_bytes"]/1024)
	out.procs = len(procs.Descendants(s.pid))
	return out, nil
}

// vmRSS reads VmRSS, RssAnon and RssFile, in kB, from
// /proc/<pid>/status.
func vmRSS(pid int) (rss, anon, file int, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, 0, err
	}
	fields := map[string]*int{"VmRSS:": &rss, "RssAnon:": &anon, "RssFile:": &file}
	for line := range strings.SplitSeq(string(b), "\n") {
		name, rest, _ := strings.Cut(line, "\t")
		if v, ok := fields[name]; ok {
			if *v, err = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB")); err != nil {
				return 0, 0, 0, err
			}
		}
	}
	if rss == 0 {
		return 0, 0, 0, errors.New("loadbench: no VmRSS in /proc/" + strconv.Itoa(pid) + "/status")
	}
	return rss, anon, file, nil
}

// readMetrics reads the named gauges from the server's metrics.
func (s *server) readMetrics(names ...string) (map[string]float64, error) {
	resp, err := s.http.Get(s.metrics)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, _ := strings.Cut(sc.Text(), " ")
		if slices.Contains(names, name) {
			if out[name], err = strconv.ParseFloat(value, 64); err != nil {
				return nil, err
			}
		}
	}
	for _, name := range names {
		if _, ok := out[name]; !ok {
			return nil, errors.New("loadbench: no " + name + " in " + s.metrics)
		}
	}
	return out, sc.Err()
}

// runSoak calls op until checkpoint calls have succeeded, samples the
// server once it has idled, goes on to total calls and samples it again,
// and prints both samples, the growth and the table row.
func runSoak(s *server, op *operation, checkpoint, total int) {
	fmt.Printf("soak: %d %s calls from %d workers against %s, memory sampled after %d and after %d\n\n",
		total, op.path, op.workers, s.api, checkpoint, total)
	var samples []sample
	done := 0
	for _, until := range []int{checkpoint, total} {
		start := time.Now()
		failed := s.driveCalls(op, until-done)
		done = until
		time.Sleep(5 * time.Second) // idle, as a server between bursts
		at, err := s.sample()
		if err != nil {
			log.Fatal(err)
		}
		samples = append(samples, at)
		fmt.Printf("after %5d calls (%d failed, %.0f s): RSS %7.1f MB (anon %6.1f MB, file %6.1f MB), Go heap %6.1f MB, "+
			"%d goroutines, %d processes\n", until, failed, time.Since(start).Seconds(), mb(at.rssKB), mb(at.anonKB), mb(at.fileKB),
			mb(at.heapKB), at.goroutines, at.procs)
	}
	first, last := samples[0], samples[1]
	growth := float64(last.rssKB) / float64(first.rssKB)
	fmt.Printf("RSS after %d / after %d: %.3f (goal <= 1.10) %s\n", total, checkpoint, growth, pass(last.memoryBack(first)))
	benchrow.Emit(benchrow.Row{
		Operation: fmt.Sprintf("server RSS, %d vs %d screenshots", total, checkpoint), Ours: mb(last.rssKB), Peer: mb(first.rssKB),
		Unit: "MB", PeerName: fmt.Sprintf("itself after %d", checkpoint), Ratio: growth, Goal: "<= 1.1", Runs: 1,
	})
}

// driveCalls makes n calls of op from op.workers workers and returns how
// many did not succeed.
func (s *server) driveCalls(op *operation, n int) int {
	var left, failed atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	for range op.workers {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if c := s.call(op); c.status != http.StatusOK {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	s.http.CloseIdleConnections()
	return int(failed.Load())
}
