// Command brandbench is bench/brand.sh: for each fixture site of
// testdata/brand it times a cold /brand extraction (Refresh) and a cached
// one, runs dembrandt (npm, bench/brand) against a Chromium of ours
// (through sitediag's filtering proxy, over CDP), and prints the colours
// and fonts each found side by side, with the times.
//
//	brandbench [-sites light-saas,dark-site,…] DEMBRANDT_JS
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/bench/benchrow"
	"github.com/sitediag/sitediag/brand"
	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/guard"
	"github.com/sitediag/sitediag/internal/guardnet"
)

func main() {
	log.SetFlags(0)
	list := flag.String("sites", "light-saas,dark-site,both-schemes,css-background-logo,self-hosted-fonts,shop", "fixture sites")
	flag.Parse()
	if flag.NArg() != 1 {
		log.Fatal("usage: brandbench [-sites a,b] DEMBRANDT_JS")
	}
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	c, err := sitediag.New(sitediag.Config{AllowNetworks: loopback})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	// dembrandt's Chromium: ours, launched with sitediag's flags, its
	// proxy a filtering proxy that allows loopback only.
	chrome, err := browser.Find(os.Getenv("SITEDIAG_CHROME_PATH"))
	if err != nil {
		log.Fatal(err)
	}
	proxy, err := guardnet.Network(guard.New(&dns.Resolver{}, guard.NewPolicy(loopback))).ListenProxy(browser.ProxyOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer proxy.Close()
	proc, err := browser.Launch(context.Background(), browser.LaunchOptions{Path: chrome, ProxyURL: proxy.URL()})
	if err != nil {
		log.Fatal(err)
	}
	defer proc.Close()
	control, _ := url.Parse(proc.ControlURL)
	cdp := "http://" + control.Host

	ctx := context.Background()
	var cold, cached, peer []float64
	fmt.Printf("%-20s %-36s %-36s\n", "site", "sitediag", "dembrandt")
	for _, site := range strings.Split(*list, ",") {
		srv := httptest.NewServer(http.FileServer(http.Dir("testdata/brand/" + site)))
		start := time.Now()
		res, err := c.Brand(ctx, srv.URL+"/", sitediag.BrandOptions{Refresh: true})
		if err != nil {
			log.Fatalf("%s: %v", site, err)
		}
		cold = append(cold, ms(time.Since(start)))
		start = time.Now()
		if _, err := c.Brand(ctx, srv.URL+"/", sitediag.BrandOptions{}); err != nil {
			log.Fatal(err)
		}
		cached = append(cached, ms(time.Since(start)))

		cmd := exec.Command("node", flag.Arg(0), srv.URL+"/", "--json-only")
		cmd.Env = append(os.Environ(), "BROWSER_CDP_ENDPOINT="+cdp)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		start = time.Now()
		out, err := cmd.Output()
		peer = append(peer, ms(time.Since(start)))
		srv.Close()
		if err != nil {
			log.Printf("dembrandt on %s: %v\n%s", site, err, lastLines(stderr.String(), 8))
		}
		dem := dembrandt(out, err)
		r := res.Record
		var fonts []string
		for _, f := range r.Fonts {
			fonts = append(fonts, f.Usage+"="+f.Family)
		}
		rows := [][3]string{
			{"primary", r.Colors.Primary, dem.primary},
			{"background", r.Colors.Background, dem.background},
			{"palette", top(r.Colors.Palette), strings.Join(dem.palette, " ")},
			{"fonts", strings.Join(fonts, " "), strings.Join(dem.fonts, " ")},
		}
		for i, row := range rows {
			name := ""
			if i == 0 {
				name = site
			}
			fmt.Printf("%-20s %-11s %-24s %-36s\n", name, row[0], row[1], row[2])
		}
	}
	fmt.Printf("\nmedian ms: sitediag cold %.0f, cached %.2f, dembrandt %.0f; cold ratio sitediag/dembrandt %.2f\n",
		median(cold), median(cached), median(peer), median(cold)/median(peer))
	benchrow.Emit(benchrow.Row{Operation: "/brand (cold)", Ours: median(cold), Peer: median(peer), Unit: "ms",
		PeerName: "dembrandt", Ratio: median(cold) / median(peer), Runs: len(cold)})
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// top is the first three palette colours.
func top(p []brand.Swatch) string {
	var out []string
	for i, s := range p {
		if i == 3 {
			break
		}
		out = append(out, s.Hex)
	}
	return strings.Join(out, " ")
}

type demResult struct {
	primary, background string
	palette, fonts      []string
}

var rgb = regexp.MustCompile(`rgba?\((\d+),\s*(\d+),\s*(\d+)`)

func hex(c string) string {
	m := rgb.FindStringSubmatch(c)
	if m == nil {
		return c
	}
	var r, g, b int
	fmt.Sscan(m[1], &r)
	fmt.Sscan(m[2], &g)
	fmt.Sscan(m[3], &b)
	return fmt.Sprintf("#%02x%02x%02x", r, g, b)
}

// dembrandt reads what dembrandt's JSON says of colours and fonts.
func dembrandt(out []byte, err error) demResult {
	if err != nil {
		return demResult{primary: "error: " + err.Error()}
	}
	var d struct {
		Colors struct {
			Semantic map[string]string `json:"semantic"`
			Palette  []struct {
				Normalized string `json:"normalized"`
				Role       string `json:"role"`
			} `json:"palette"`
		} `json:"colors"`
		Typography struct {
			Styles []struct {
				Context string `json:"context"`
				Family  string `json:"family"`
			} `json:"styles"`
		} `json:"typography"`
	}
	if err := json.Unmarshal(out, &d); err != nil {
		return demResult{primary: "unparsable output"}
	}
	r := demResult{primary: hex(d.Colors.Semantic["primary"])}
	for _, p := range d.Colors.Palette {
		if p.Role == "surface" && r.background == "" {
			r.background = p.Normalized
		}
		if len(r.palette) < 3 {
			r.palette = append(r.palette, p.Normalized)
		}
	}
	seen := map[string]bool{}
	for _, s := range d.Typography.Styles {
		if !seen[s.Family] {
			seen[s.Family] = true
			r.fonts = append(r.fonts, s.Context+"="+s.Family)
		}
	}
	return r
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
