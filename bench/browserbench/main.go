// Command browserbench times /screenshot and /url2pdf through the HTTP
// API on a warm browser beside a cold `chromium --headless --screenshot`
// and `--print-to-pdf` of the same local page, and measures the memory
// (PSS) of the browser's processes while 8 jobs run at once. It runs
// bench/browser.sh; nothing leaves the machine. Timings are reported, never
// judged.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/bench/benchrow"
	"github.com/sitediag/sitediag/bench/internal/benchapi"
	"github.com/sitediag/sitediag/bench/internal/benchenv"
	"github.com/sitediag/sitediag/bench/internal/benchstat"
	"github.com/sitediag/sitediag/blobstore"
	"github.com/sitediag/sitediag/httpapi"
	"github.com/sitediag/sitediag/internal/procs"
)

// memoryBudgetMB is issue #28's budget for the browser's processes
// while 8 jobs run at once.
const memoryBudgetMB = 600

// page is a modest document: text, styles, an inline SVG and a few local
// images.
const page = `<!doctype html><html><head><title>Bench</title><style>
body { font: 16px/1.5 sans-serif; margin: 0 auto; max-width: 960px; padding: 24px }
.card { border: 1px solid #ccc; border-radius: 8px; padding: 16px; margin: 16px 0 }
</style></head><body><h1>Benchmark page</h1>
<svg width="200" height="80"><rect width="200" height="80" fill="#036"/><text x="20" y="50" fill="#fff">sitediag</text></svg>
%s
</body></html>`

func main() {
	runs := flag.Int("n", 10, "timed runs of each kind")
	concurrent := flag.Int("concurrency", 8, "jobs at once for the memory measurement")
	flag.Parse()
	log.SetFlags(0)
	if err := run(*runs, *concurrent); err != nil {
		log.Fatal(err)
	}
}

func run(runs, concurrent int) error {
	chrome := benchenv.Chromium()
	var cards strings.Builder
	for i := range 12 {
		fmt.Fprintf(&cards, `<div class="card"><h2>Section %d</h2><img src="/img.svg?%d" width="120" height="60">
<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.</p></div>`, i, i)
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/img.svg") {
			w.Header().Set("Content-Type", "image/svg+xml")
			io.WriteString(w, `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60"><rect width="120" height="60" fill="#c60"/></svg>`)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, page, cards.String())
	}))
	defer site.Close()

	// Every job is traced into memory, to break its time into phases.
	spans := tracetest.NewInMemoryExporter()
	tracer := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tracer.Shutdown(context.Background())
	client := benchenv.Client(sitediag.Config{ChromePath: chrome, MaxBrowserJobs: concurrent, TracerProvider: tracer})
	defer client.Close()
	dir, err := os.MkdirTemp("", "browserbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	store, err := blobstore.OpenDir(filepath.Join(dir, "artifacts"), blobstore.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	api := benchapi.Serve(client, httpapi.Options{Artifacts: store})
	defer api.Close()

	fmt.Printf("chromium: %s\npage: %s\nruns: %d each (medians)\n\n", chrome, site.URL, runs)
	// Warm the browser up: the API keeps one running.
	if _, err := post(api.URL, "/screenshot", map[string]any{"url": site.URL}); err != nil {
		return err
	}
	spans.Reset()
	ours := map[string][]float64{}
	for _, op := range []string{"/screenshot", "/url2pdf"} {
		for range runs {
			d, err := post(api.URL, op, map[string]any{"url": site.URL})
			if err != nil {
				return err
			}
			ours[op] = append(ours[op], d)
		}
	}
	byPhase, err := jobPhases(spans, ours["/screenshot"])
	if err != nil {
		return err
	}
	cold := map[string][]float64{}
	for _, tc := range []struct{ op, flag string }{
		{"/screenshot", "--screenshot=" + filepath.Join(dir, "cold.png")},
		{"/url2pdf", "--print-to-pdf=" + filepath.Join(dir, "cold.pdf")},
	} {
		for range runs {
			d, err := coldRun(chrome, dir, tc.flag, site.URL)
			if err != nil {
				return err
			}
			cold[tc.op] = append(cold[tc.op], d)
		}
	}
	fmt.Printf("%-12s %14s %22s %8s\n", "operation", "sitediag API", "cold chromium CLI", "ratio")
	goals := map[string]string{"/screenshot": "<= 0.15"}
	for _, op := range []string{"/screenshot", "/url2pdf"} {
		a, b := benchstat.Median(ours[op]), benchstat.Median(cold[op])
		fmt.Printf("%-12s %11.0f ms %19.0f ms %7.2fx\n", op, a, b, a/b)
		benchrow.Emit(benchrow.Row{
			Operation: op + " (warm API)", Ours: a, Peer: b, Unit: "ms", PeerName: "cold chromium --headless",
			Ratio: a / b, Goal: goals[op], Runs: runs,
		})
	}
	printPhases(byPhase)

	peak, procs, err := memory(api.URL, site.URL, concurrent)
	if err != nil {
		return err
	}
	fmt.Printf("\nbrowser memory with %d concurrent /screenshot jobs: peak PSS %.0f MB over %d processes\n",
		concurrent, float64(peak)/1024, procs)
	benchrow.Emit(benchrow.Row{
		Operation: fmt.Sprintf("browser PSS, %d jobs at once", concurrent), Ours: float64(peak) / 1024, Peer: memoryBudgetMB,
		Unit: "MB", PeerName: "the budget", Ratio: float64(peak) / 1024 / memoryBudgetMB, Goal: "<= 1", Runs: 1,
	})
	return nil
}

// post sends one API request and returns how long it took, in ms.
func post(base, op string, body map[string]any) (float64, error) {
	data, _ := json.Marshal(body)
	start := time.Now()
	if _, err := benchapi.Post(http.DefaultClient, base, op, data); err != nil {
		return 0, err
	}
	return benchstat.Millis(time.Since(start)), nil
}

// coldRun runs one headless Chromium from scratch with a fresh profile
// and returns how long it took, in ms.
func coldRun(chrome, dir, outFlag, target string) (float64, error) {
	profile, err := os.MkdirTemp(dir, "profile-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(profile)
	args := []string{"--headless", "--user-data-dir=" + profile, "--window-size=1366,768", "--hide-scrollbars",
		"--no-first-run", "--disable-extensions", outFlag, target}
	if os.Geteuid() == 0 {
		args = append([]string{"--no-sandbox"}, args...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	if out, err := exec.CommandContext(ctx, chrome, args...).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("cold chromium: %v: %s", err, out)
	}
	return benchstat.Millis(time.Since(start)), nil
}

// memory runs n screenshot jobs at once, each waiting 3 s on the page,
// and samples the PSS of this process's descendants (the browser's
// process tree and its leakless guard) plus the strays carrying the same
// browser marker, keeping the peak, in kB.
func memory(base, target string, n int) (peak int, procs int, err error) {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			if _, err := post(base, "/screenshot", map[string]any{"url": target, "delay": 3, "fullPage": true}); err != nil {
				errs <- err
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			close(errs)
			return peak, procs, <-errs
		case <-tick.C:
			pss, count := browserPSS()
			if pss > peak {
				peak, procs = pss, count
			}
		}
	}
}

// browserPSS sums Pss over the browser's processes: this process's
// descendants and any process carrying the same browser marker.
func browserPSS() (kb, count int) {
	parents := map[int]int{}
	for _, p := range procs.List() {
		parents[p.PID] = p.PPID
	}
	self := os.Getpid()
	ours := map[int]bool{}
	markers := map[string]bool{}
	for pid := range parents {
		for p := parents[pid]; p > 1; p = parents[p] {
			if p == self {
				ours[pid] = true
				if m := marker(pid); m != "" {
					markers[m] = true
				}
				break
			}
		}
	}
	for pid := range parents {
		if m := marker(pid); m != "" && markers[m] {
			ours[pid] = true
		}
	}
	for pid := range ours {
		if v := pss(pid); v > 0 {
			kb += v
			count++
		}
	}
	return kb, count
}

func marker(pid int) string {
	env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return ""
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("SITEDIAG_BROWSER_INSTANCE=")); ok {
			return string(v)
		}
	}
	return ""
}

func pss(pid int) int {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "smaps_rollup"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "Pss:"); ok {
			v, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return v
		}
	}
	return 0
}
