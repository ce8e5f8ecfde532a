// Command upbench measures /up throughput through the API beside the
// floor a plain Go client reaches on the same machine (bench/up.sh).
//
// It starts, all on 127.0.0.1: a page, a DNS server (internal/dnstest)
// that resolves site.test to loopback, and the httpapi handler over a
// sitediag client that uses that DNS server. Then, for the same time and
// number of workers, it counts:
//
//   - api: POST /up {"url": "http://site.test:<port>/"} through the handler
//     (keep-alive between the caller and the API, as a real client does);
//   - floor: what a diagnosis must do at the least, in plain Go: resolve
//     site.test with the same DNS server (A and AAAA, as sitediag does)
//     and GET the page on a fresh connection.
//
// The two sides take turns, rounds times, so both see the same machine
// load. It prints requests per second for each round, their medians and
// the median of the rounds' ratios api/floor, and the table row
// (bench/benchrow). Since the machine may be shared, each side's CPU
// time per request is printed too: on a busy machine their ratio says
// more than the throughputs do, and so are the heap allocations per
// request. The profiles cover the API side's first round; take the CPU
// and the allocation profile in separate runs, since recording
// allocations slows the round.
//
//	upbench [-workers 8] [-duration 2s] [-rounds 5] [-cpuprofile file] [-memprofile file]
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	mdns "github.com/miekg/dns"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/bench/benchrow"
	"github.com/sitediag/sitediag/bench/internal/benchapi"
	"github.com/sitediag/sitediag/bench/internal/benchenv"
	"github.com/sitediag/sitediag/bench/internal/benchstat"
	"github.com/sitediag/sitediag/httpapi"
)

func main() {
	log.SetFlags(0)
	workers := flag.Int("workers", 8, "concurrent callers")
	duration := flag.Duration("duration", 2*time.Second, "how long each side runs in a round")
	rounds := flag.Int("rounds", 5, "rounds, each running the API and then the floor; the ratio is their median")
	cpuprofile := flag.String("cpuprofile", "", "write the API side's CPU profile to this file")
	memprofile := flag.String("memprofile", "", "write the API side's allocation profile to this file")
	flag.Parse()

	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "<!doctype html><title>up</title>ok\n")
	}))
	defer page.Close()
	port := page.Listener.Addr().(*net.TCPAddr).Port

	dns := benchenv.DNS("site.test. 60 IN A 127.0.0.1")
	defer dns.Close()
	client := benchenv.Client(sitediag.Config{DNSServers: []string{dns.Addr}})
	defer client.Close()
	api := benchapi.Serve(client, httpapi.Options{})
	defer api.Close()

	target := fmt.Sprintf("http://site.test:%d/", port)
	body := []byte(`{"url":"` + target + `"}`)
	caller := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *workers}}

	if *memprofile != "" {
		runtime.MemProfileRate = 4096
	}
	var apiRates, floorRates, ratios, cpuRatios, apiCPUs, floorCPUs []float64
	for i := range *rounds {
		profiling := i == 0 && *cpuprofile != ""
		if profiling {
			f, err := os.Create(*cpuprofile)
			if err != nil {
				log.Fatal(err)
			}
			pprof.StartCPUProfile(f)
		}
		apiRate, apiCPU, apiAllocs := run(*workers, *duration, func() error { return callUp(caller, api.URL, body) })
		if profiling {
			pprof.StopCPUProfile()
		}
		if i == 0 && *memprofile != "" {
			writeHeapProfile(*memprofile)
			runtime.MemProfileRate = 0
		}
		floorRate, floorCPU, floorAllocs := run(*workers, *duration, func() error { return floor(dns.Addr, port) })
		apiRates, floorRates = append(apiRates, apiRate), append(floorRates, floorRate)
		ratios = append(ratios, apiRate/floorRate)
		cpuRatios = append(cpuRatios, float64(floorCPU)/float64(apiCPU))
		apiCPUs, floorCPUs = append(apiCPUs, us(apiCPU)), append(floorCPUs, us(floorCPU))
		fmt.Printf("round %d: api %6.0f req/s %4.0f µs CPU/req %4.0f allocs/req, floor %6.0f req/s %4.0f µs CPU/req %4.0f allocs/req, ratio %.2f, CPU ratio %.2f (load %.1f)\n",
			i+1, apiRate, us(apiCPU), apiAllocs, floorRate, us(floorCPU), floorAllocs, apiRate/floorRate, cpuRatios[i], benchrow.LoadAverage())
	}
	// What the API's own hop costs: a GET /livez through the same
	// caller, no diagnosis behind it.
	_, hopCPU, hopAllocs := run(*workers, *duration, func() error { return callLivez(caller, api.URL) })
	fmt.Printf("the API hop alone (GET /livez, same caller): %.0f µs CPU/req %.0f allocs/req\n", us(hopCPU), hopAllocs)
	fmt.Printf("up throughput: %d workers, %d rounds of %v each side, against %s\n", *workers, *rounds, *duration, target)
	fmt.Printf("%-8s %10.0f req/s (median)\n", "api", benchstat.Median(apiRates))
	fmt.Printf("%-8s %10.0f req/s (median)\n", "floor", benchstat.Median(floorRates))
	fmt.Printf("ratio    %10.2f (median of the rounds)\n", benchstat.Median(ratios))
	fmt.Printf("CPU ratio %9.2f (floor's CPU time per request / the API's, median of the rounds;\n"+
		"          the throughput ratio an idle machine would give when both are CPU-bound)\n", benchstat.Median(cpuRatios))
	benchrow.Emit(benchrow.Row{
		Operation: fmt.Sprintf("/up throughput, %d callers", *workers), Ours: benchstat.Median(apiRates), Peer: benchstat.Median(floorRates),
		Unit: "req/s", PeerName: "Go client, fresh connection", Ratio: benchstat.Median(ratios), Goal: ">= 0.8", Runs: *rounds,
	})
	// The same goal in CPU time per request, which a shared machine
	// disturbs less: 0.8 of the floor's throughput is 1.25 of its CPU.
	benchrow.Emit(benchrow.Row{
		Operation: "/up CPU time per request", Ours: benchstat.Median(apiCPUs), Peer: benchstat.Median(floorCPUs),
		Unit: "µs", PeerName: "Go client, fresh connection", Ratio: 1 / benchstat.Median(cpuRatios), Goal: "<= 1.25", Runs: *rounds,
	})
}

// run calls do from workers goroutines for d and returns the successful
// calls per second, the process's CPU time (user and system) per call
// and its heap allocations per call; the first error ends the program.
func run(workers int, d time.Duration, do func() error) (perSecond float64, cpu time.Duration, allocs float64) {
	var n atomic.Int64
	var wg sync.WaitGroup
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpuBefore := cpuTime()
	deadline := time.Now().Add(d)
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if err := do(); err != nil {
					log.Fatal(err)
				}
				n.Add(1)
			}
		})
	}
	wg.Wait()
	calls := n.Load()
	cpu = (cpuTime() - cpuBefore) / time.Duration(max(calls, 1))
	runtime.ReadMemStats(&after)
	return float64(calls) / time.Since(start).Seconds(), cpu, float64(after.Mallocs-before.Mallocs) / float64(max(calls, 1))
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		log.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// callUp posts one /up and checks that the site was found up.
func callUp(c *http.Client, api string, body []byte) error {
	out, err := benchapi.Post(c, api, "/up", body)
	if err != nil {
		return err
	}
	if !bytes.Contains(out, []byte(`"statusCode":200`)) {
		return fmt.Errorf("/up: %s", out)
	}
	return nil
}

// callLivez gets /livez: the cost of reaching the API at all.
func callLivez(c *http.Client, api string) error {
	resp, err := c.Get(api + "/livez")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/livez: %d", resp.StatusCode)
	}
	return nil
}

// floor resolves site.test with the DNS server at dnsAddr, A and AAAA at
// once, and GETs the page on a fresh connection.
func floor(dnsAddr string, port int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var (
		wg   sync.WaitGroup
		addr netip.Addr
		mu   sync.Mutex
	)
	for _, qtype := range []uint16{mdns.TypeA, mdns.TypeAAAA} {
		wg.Go(func() {
			msg := new(mdns.Msg)
			msg.SetQuestion("site.test.", qtype)
			resp, err := mdns.ExchangeContext(ctx, msg, dnsAddr)
			if err != nil {
				return
			}
			for _, rr := range resp.Answer {
				if a, ok := rr.(*mdns.A); ok {
					mu.Lock()
					addr, _ = netip.AddrFromSlice(a.A.To4())
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if !addr.IsValid() {
		return fmt.Errorf("floor: site.test did not resolve")
	}
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://%s/", netip.AddrPortFrom(addr, uint16(port))), nil)
	req.Host = fmt.Sprintf("site.test:%d", port)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("floor: %d", resp.StatusCode)
	}
	return nil
}

// writeHeapProfile writes the allocations made so far to path.
func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		log.Fatal(err)
	}
}
