package main

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sitediag/sitediag/bench/internal/benchenv"
	"github.com/sitediag/sitediag/internal/procs"
)

// soakConfig is what a soak needs besides its duration.
type soakConfig struct {
	server, chrome, redis string        // binaries
	duration              time.Duration // how long the mix runs
	rate                  float64       // multiplies every operation's call rate
}

// paced is one operation of the soak: one caller that starts a call
// every interval (right after the last one when that took longer).
type paced struct {
	*operation
	interval time.Duration
}

// soak runs every operation of the API at a modest, sustainable rate
// against local targets for cfg.duration, on a server it starts (with
// Redis and a DNS server of its own, and a TMPDIR of its own so that
// leftovers are the server's), restarts Chromium and Redis at the
// half-way mark, prints the server's RSS and goroutines every minute,
// and at the end per-operation p50/p99 and statuses, 5xx by cause, and
// the processes and temporary folders left once the server has stopped.
func soak(cfg soakConfig) {
	work, err := os.MkdirTemp("", "loadbench-soak-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	tmp := filepath.Join(work, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		log.Fatal(err)
	}

	site, siteURL := soakSite()
	defer site.Close()
	tlsSite := httptest.NewUnstartedServer(http.NotFoundHandler())
	tlsSite.Config.ErrorLog = log.New(io.Discard, "", 0)
	tlsSite.StartTLS()
	defer tlsSite.Close()
	dns := benchenv.DNS("site.test. 60 IN A 127.0.0.1")
	defer dns.Close()
	rds := startRedis(cfg.redis, work, "")
	defer rds.stop()

	srv := startServer(cfg, work, tmp, dns.Addr, rds.addr)
	defer srv.stop()
	server := &server{api: srv.api, key: "bench", pid: srv.cmd.Process.Pid, metrics: "http://" + srv.metrics + "/metrics",
		http: &http.Client{Timeout: 4 * time.Minute}}

	_, port, _ := net.SplitHostPort(strings.TrimPrefix(site.URL, "http://"))
	every := func(d time.Duration) time.Duration { return time.Duration(float64(d) / cfg.rate) }
	page := `{"url":"` + siteURL + `/"}`
	ops := []paced{
		{&operation{path: "/up", body: page}, every(5 * time.Second)},
		{&operation{path: "/redirectcheck", body: `{"url":"` + siteURL + `/old"}`}, every(5 * time.Second)},
		{&operation{path: "/httpheader", body: page}, every(5 * time.Second)},
		{&operation{path: "/httpprotocol", body: page}, every(10 * time.Second)},
		{&operation{path: "/ttfb", body: page}, every(5 * time.Second)},
		{&operation{path: "/loadtime", body: page}, every(10 * time.Second)},
		{&operation{path: "/brokenlink", body: page}, every(10 * time.Second)},
		{&operation{path: "/dnsrecord", body: `{"url":"site.test"}`}, every(5 * time.Second)},
		{&operation{path: "/dnssec", body: `{"url":"site.test"}`}, every(10 * time.Second)},
		{&operation{path: "/openport", body: `{"url":"127.0.0.1","portRanges":"` + port + `"}`}, every(15 * time.Second)},
		{&operation{path: "/ping", body: `{"url":"127.0.0.1"}`}, every(15 * time.Second)},
		{&operation{path: "/mtr", body: `{"url":"127.0.0.1"}`}, every(30 * time.Second)},
		{&operation{path: "/tlsscan", body: `{"url":"` + tlsSite.URL + `/"}`}, every(30 * time.Second)},
		{&operation{path: "/screenshot", body: page}, every(20 * time.Second)},
		{&operation{path: "/url2pdf", body: page}, every(30 * time.Second)},
		{&operation{path: "/metascraping", body: page}, every(20 * time.Second)},
		{&operation{path: "/web-scraping", body: `{"url":"` + siteURL + `/","format":["html","markdown"]}`}, every(20 * time.Second)},
		{&operation{path: "/mixedcontent", body: page}, every(30 * time.Second)},
		{&operation{path: "/brand", body: page}, every(30 * time.Second)},
		{&operation{path: "/lighthouse", body: `{"url":"` + siteURL + `/","parameters":["--only-categories=performance,seo"]}`}, every(90 * time.Second)},
	}

	base, err := server.sample()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("soak: %v of %d operations (rate ×%g) against %s (%d cores, load %s), Chromium and Redis restarted at %v\n\n",
		cfg.duration, len(ops), cfg.rate, srv.api, runtime.NumCPU(), loadAvg(), cfg.duration/2)
	fmt.Printf("%-6s %9s %9s %11s %10s %8s %6s  %s\n", "minute", "RSS", "Go heap", "goroutines", "processes", "calls", "5xx", "load")
	printSample := func(minute int, s sample) {
		calls, fives := 0, 0
		for _, op := range ops {
			op.mu.Lock()
			calls += len(op.latencies)
			fives += op.serviceErrors()
			op.mu.Unlock()
		}
		fmt.Printf("%-6d %6.1f MB %6.1f MB %11d %10d %8d %6d  %s\n", minute, mb(s.rssKB), mb(s.heapKB), s.goroutines, s.procs, calls, fives, loadAvg())
	}
	printSample(0, base)

	start := time.Now()
	deadline := start.Add(cfg.duration)
	var wg sync.WaitGroup
	for _, op := range ops {
		wg.Go(func() {
			for next := time.Now(); time.Now().Before(deadline); {
				time.Sleep(time.Until(next))
				next = time.Now().Add(op.interval)
				op.record(server.call(op.operation))
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	restarted := false
	ticker := time.NewTicker(time.Minute)
	defer ticker.Stop()
	for minute := 1; ; minute++ {
		select {
		case <-done:
		case <-ticker.C:
			if s, err := server.sample(); err == nil {
				printSample(minute, s)
			} else {
				fmt.Printf("%-6d sample: %v\n", minute, err)
			}
			if !restarted && time.Since(start) >= cfg.duration/2 {
				restarted = true
				fmt.Printf("       killed Chromium (%s); Redis restarted (%v down)\n", killChromium(server.pid), rds.restart(cfg.redis, work))
			}
			continue
		}
		break
	}
	server.http.CloseIdleConnections()

	fmt.Printf("\n%-14s %7s %9s %9s  %s\n", "operation", "calls", "p50", "p99", "statuses")
	causes := map[string]int{}
	for _, op := range ops {
		fmt.Printf("%-14s %7d %9s %9s  %s\n", op.path, len(op.latencies), quantile(op.latencies, 0.50), quantile(op.latencies, 0.99), op.statuses())
		for label, n := range op.counts {
			if strings.HasPrefix(label, "5") || strings.HasPrefix(label, "error: ") {
				causes[op.path+" "+label] += n
			}
		}
	}
	fmt.Println("\n5xx and unanswered calls by cause:")
	if len(causes) == 0 {
		fmt.Println("  none")
	}
	for _, c := range slices.Sorted(func(yield func(string) bool) {
		for c := range causes {
			if !yield(c) {
				return
			}
		}
	}) {
		fmt.Printf("  %5d  %s\n", causes[c], c)
	}
	for _, op := range ops {
		for _, d := range op.details {
			fmt.Printf("  %s: %s\n", op.path, d)
		}
	}

	time.Sleep(10 * time.Second) // the last jobs' browsers and workers wind down
	idle, _ := server.sample()
	fmt.Printf("\nserver idle 10 s after the soak: RSS %.1f MB (start %.1f MB), goroutines %d (start %d), processes below it %d (start %d)\n",
		mb(idle.rssKB), mb(base.rssKB), idle.goroutines, base.goroutines, idle.procs, base.procs)
	srv.stop()
	fmt.Printf("after the server stopped: processes left %v, temporary folders left %v\n", leftProcesses(tmp), leftFolders(tmp))
}

// soakSite serves, on 127.0.0.1 and as site.test, the page the
// operations load (with a link, a redirect and an image as data:).
func soakSite() (*httptest.Server, string) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/old":
			http.Redirect(w, r, "/", http.StatusMovedPermanently)
		case "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, strings.Replace(page, "</body>",
				`<p><a href="/">Home</a> <a href="/old">Old</a></p><img alt="dot" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">`+
					`<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Load","url":"/"}</script></body>`, 1))
		default:
			http.NotFound(w, r)
		}
	}))
	return site, "http://site.test:" + site.URL[strings.LastIndex(site.URL, ":")+1:]
}

// redisServer is a redis-server the soak runs (and restarts).
type redisServer struct {
	addr string
	cmd  *exec.Cmd
}

// startRedis runs redis-server on addr (a free port when empty),
// nothing persisted, and waits until it accepts connections.
func startRedis(bin, dir, addr string) *redisServer {
	if addr == "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		addr = ln.Addr().String()
		ln.Close()
	}
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no", "--dir", dir)
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	for range 100 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return &redisServer{addr: addr, cmd: cmd}
		}
		time.Sleep(100 * time.Millisecond)
	}
	log.Fatalf("loadbench: redis-server on %s did not start", addr)
	return nil
}

func (r *redisServer) stop() {
	r.cmd.Process.Kill()
	r.cmd.Wait()
}

// restart kills Redis, leaves it down 5 s, starts it again on the same
// port and says how long it was down.
func (r *redisServer) restart(bin, dir string) time.Duration {
	start := time.Now()
	r.stop()
	time.Sleep(5 * time.Second)
	*r = *startRedis(bin, dir, r.addr)
	return time.Since(start).Round(100 * time.Millisecond)
}

// runningServer is the example server the soak started.
type runningServer struct {
	cmd          *exec.Cmd
	api, metrics string
	once         sync.Once
}

// startServer starts the example server with the soak's Redis, DNS
// server and TMPDIR, loopback allowed, and reads its addresses from its
// log.
func startServer(cfg soakConfig, work, tmp, dnsAddr, redisAddr string) *runningServer {
	cmd := exec.Command(cfg.server, "-addr", "127.0.0.1:0", "-data-dir", filepath.Join(work, "data"))
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "SITEDIAG_API_KEYS=bench", "SITEDIAG_RATE_LIMIT=0",
		"SITEDIAG_ALLOW_NETWORKS=127.0.0.1/32", "SITEDIAG_METRICS_ADDR=127.0.0.1:0", "SITEDIAG_CHROME_PATH="+cfg.chrome,
		"SITEDIAG_DNS_SERVERS="+dnsAddr, "SITEDIAG_REDIS_URL=redis://"+redisAddr+"/0")
	logs, err := cmd.StderrPipe()
	if err != nil {
		log.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	s := &runningServer{cmd: cmd}
	ready := make(chan struct{})
	go func() {
		logFile, _ := os.Create(filepath.Join(work, "server.log"))
		sc := bufio.NewScanner(logs)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if logFile != nil {
				fmt.Fprintln(logFile, line)
			}
			if _, addr, ok := strings.Cut(line, "msg=listening addr="); ok {
				s.api = "http://" + strings.Fields(addr)[0]
			}
			if _, addr, ok := strings.Cut(line, "msg=metrics addr="); ok {
				s.metrics = strings.Fields(addr)[0]
			}
			if s.api != "" && s.metrics != "" && ready != nil {
				close(ready)
				ready = nil
			}
			if strings.Contains(line, "level=ERROR") {
				fmt.Fprintln(os.Stderr, "server:", line)
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		log.Fatal("loadbench: the server did not start")
	}
	return s
}

// stop ends the server as an operator does (SIGTERM) and waits.
func (s *runningServer) stop() {
	s.once.Do(func() {
		s.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			s.cmd.Process.Kill()
			<-done
		}
	})
}

// killChromium kills the browser processes below pid whose parent is
// not a browser process (each browser's main process), as a crash
// would, and names them.
func killChromium(pid int) string {
	below := procs.Descendants(pid)
	parent := map[int]int{}
	for _, p := range procs.List() {
		parent[p.PID] = p.PPID
	}
	var killed []string
	for _, p := range below {
		if isChromium(p) && !isChromium(parent[p]) {
			syscall.Kill(p, syscall.SIGKILL)
			killed = append(killed, "pid "+strconv.Itoa(p))
		}
	}
	if len(killed) == 0 {
		return "none was running"
	}
	return strings.Join(killed, ", ")
}

func isChromium(pid int) bool {
	comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.HasPrefix(strings.TrimSpace(string(comm)), "chrom")
}

// leftProcesses lists the processes whose command line names the
// server's TMPDIR (a browser's profile, a Lighthouse worker's).
func leftProcesses(tmp string) []string {
	var out []string
	for _, p := range procs.List() {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.PID))
		if strings.Contains(string(cmdline), tmp) && p.PID != os.Getpid() {
			out = append(out, strconv.Itoa(p.PID)+" "+strings.ReplaceAll(string(cmdline[:min(len(cmdline), 80)]), "\x00", " "))
		}
	}
	return out
}

// leftFolders lists what the server left in its TMPDIR.
func leftFolders(tmp string) []string {
	entries, _ := os.ReadDir(tmp)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
