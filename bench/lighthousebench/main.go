// Command lighthousebench is bench/lighthouse.sh: sitediag's Lighthouse
// (warm worker, through the filtering proxy) beside the plain lighthouse
// CLI (a cold Node and Chromium per run, the same pinned package) on the
// same local page, N runs each after one warm-up of ours. It prints the
// median time of each, the ratio, and both runs' category scores.
//
//	lighthousebench [-n 5] [-page testdata/pages/blog-post.html]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/bench/benchrow"
	"github.com/sitediag/sitediag/browser"
)

func main() {
	log.SetFlags(0)
	runs := flag.Int("n", 5, "runs of each")
	page := flag.String("page", "testdata/pages/blog-post.html", "the page audited")
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	body, err := os.ReadFile(*page)
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(body)
	}))
	target := "http://" + ln.Addr().String() + "/"

	// A loaded machine makes a cold start slow; the bench measures, it does not time out.
	c, err := sitediag.New(sitediag.Config{Timeout: 5 * time.Minute, LighthouseJobTimeout: 5 * time.Minute, AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, LighthouseDir: "lighthouse"})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if _, err := c.Lighthouse(ctx, target, sitediag.LighthouseOptions{}); err != nil { // warm-up: starts the worker
		log.Fatal(err)
	}
	var ours []float64
	var ourScores sitediag.LighthouseScores
	for range *runs {
		start := time.Now()
		res, err := c.Lighthouse(ctx, target, sitediag.LighthouseOptions{})
		if err != nil {
			log.Fatal(err)
		}
		ours = append(ours, float64(time.Since(start).Milliseconds()))
		ourScores = res.Scores
	}

	chrome, err := browser.Find(os.Getenv("SITEDIAG_CHROME_PATH"))
	if err != nil {
		log.Fatal(err)
	}
	cli, _ := filepath.Abs("lighthouse/node_modules/.bin/lighthouse")
	var theirs []float64
	var cliScores map[string]int
	for range *runs {
		cmd := exec.Command(cli, target, "--preset=desktop", "--output=json", "--output-path=stdout", "--quiet",
			"--chrome-flags=--headless=new --no-sandbox --disable-gpu")
		cmd.Env = append(os.Environ(), "CHROME_PATH="+chrome)
		start := time.Now()
		out, err := cmd.Output()
		if err != nil {
			log.Fatalf("lighthouse CLI: %v", err)
		}
		theirs = append(theirs, float64(time.Since(start).Milliseconds()))
		cliScores = scores(out)
	}
	a, b := median(ours), median(theirs)
	fmt.Printf("lighthouse: %d runs each, desktop preset, %s\n", *runs, *page)
	fmt.Printf("%-22s %10s\n", "", "median ms")
	fmt.Printf("%-22s %10.0f\n", "sitediag /lighthouse", a)
	fmt.Printf("%-22s %10.0f\n", "lighthouse CLI", b)
	fmt.Printf("ratio sitediag/CLI: %.2f\n\n", a/b)
	benchrow.Emit(benchrow.Row{Operation: "/lighthouse", Ours: a, Peer: b, Unit: "ms",
		PeerName: "lighthouse CLI", Ratio: a / b, Runs: *runs})
	fmt.Printf("%-16s %9s %9s\n", "category", "sitediag", "CLI")
	for _, cat := range []struct {
		id   string
		ours *int
	}{{"performance", ourScores.Performance}, {"accessibility", ourScores.Accessibility},
		{"best-practices", ourScores.BestPractices}, {"seo", ourScores.SEO}} {
		o := "-"
		if cat.ours != nil {
			o = fmt.Sprint(*cat.ours)
		}
		fmt.Printf("%-16s %9s %9d\n", cat.id, o, cliScores[cat.id])
	}
}

func scores(report []byte) map[string]int {
	var lhr struct {
		Categories map[string]struct {
			Score *float64 `json:"score"`
		} `json:"categories"`
	}
	if err := json.Unmarshal(report, &lhr); err != nil {
		log.Fatalf("CLI report: %v", err)
	}
	out := map[string]int{}
	for id, c := range lhr.Categories {
		if c.Score != nil {
			out[id] = int(math.Round(*c.Score * 100))
		}
	}
	return out
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
