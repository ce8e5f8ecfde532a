// Command brandbench is bench/brand.sh: for each fixture site of
// testdata/brand (or of -dir) it times a cold /brand extraction
// (Refresh) and a cached one, runs dembrandt (npm, bench/brand) against a
// Chromium of ours (through sitediag's filtering proxy, over CDP), and
// prints the colours and fonts each found side by side, with the times,
// then how often the primary colour, the heading font and the body font
// agree, each value that differs, and every value sitediag gave that is
// a Chromium default (uaDefaults). The time, the agreement and the defaults reported are
// rows of the benchmark table (bench/benchrow).
//
// dembrandt's heading font is its first heading-1 or display style's
// family; its body font the family most of its body-context styles have.
//
//	brandbench [-dir testdata/brand] [-sites light-saas,dark-site,…|all] DEMBRANDT_JS
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/bench/benchrow"
	"github.com/sitediag/sitediag/bench/internal/benchenv"
	"github.com/sitediag/sitediag/bench/internal/benchstat"
	"github.com/sitediag/sitediag/brand"
	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/guardnet"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/netx"
)

func main() {
	log.SetFlags(0)
	dir := flag.String("dir", "testdata/brand", "folder of fixture sites, one folder each")
	list := flag.String("sites", "light-saas,dark-site,both-schemes,css-background-logo,self-hosted-fonts,shop", "fixture sites, or all")
	args := benchenv.Args(1, "brandbench [-sites a,b] DEMBRANDT_JS")
	if *list == "all" {
		entries, err := os.ReadDir(*dir)
		if err != nil {
			log.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			if e.IsDir() {
				names = append(names, e.Name())
			}
		}
		*list = strings.Join(names, ",")
	}
	c := benchenv.Client(sitediag.Config{})
	defer c.Close()

	// dembrandt's Chromium: ours, launched with sitediag's flags, its
	// proxy a filtering proxy that allows loopback only.
	proxy, err := guardnet.Network(guard.New(&dns.Resolver{}, guard.NewPolicy(benchenv.Loopback()))).ListenProxy(netx.ProxyOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer proxy.Close()
	proc, err := browser.Launch(context.Background(), browser.LaunchOptions{Path: benchenv.Chromium(), ProxyURL: proxy.URL()})
	if err != nil {
		log.Fatal(err)
	}
	defer proc.Close()
	control, _ := url.Parse(proc.ControlURL)
	cdp := "http://" + control.Host

	ctx := context.Background()
	var cold, cached, peer []float64
	var agree agreement
	var defaults, disagree []string
	fmt.Printf("%-20s %-36s %-36s\n", "site", "sitediag", "dembrandt")
	for _, site := range strings.Split(*list, ",") {
		srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(*dir, site))))
		start := time.Now()
		res, err := c.Brand(ctx, srv.URL+"/", sitediag.BrandOptions{Refresh: sitediag.On})
		if err != nil {
			log.Fatalf("%s: %v", site, err)
		}
		cold = append(cold, benchstat.Millis(time.Since(start)))
		start = time.Now()
		if _, err := c.Brand(ctx, srv.URL+"/", sitediag.BrandOptions{}); err != nil {
			log.Fatal(err)
		}
		cached = append(cached, benchstat.Millis(time.Since(start)))

		cmd := exec.Command("node", args[0], srv.URL+"/", "--json-only")
		cmd.Env = append(os.Environ(), "BROWSER_CDP_ENDPOINT="+cdp)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		start = time.Now()
		out, err := cmd.Output()
		peer = append(peer, benchstat.Millis(time.Since(start)))
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
		heading, body := fontOf(r.Fonts, "heading"), fontOf(r.Fonts, "body")
		agree.add(r.Colors.Primary == dem.primary, heading == dem.heading, body == dem.body)
		for _, v := range [][3]string{{"primary", r.Colors.Primary, dem.primary}, {"heading", heading, dem.heading}, {"body", body, dem.body}} {
			if v[1] != v[2] {
				disagree = append(disagree, fmt.Sprintf("%s %s: sitediag %q, dembrandt %q", site, v[0], v[1], v[2]))
			}
		}
		declared := siteText(filepath.Join(*dir, site))
		for _, v := range []string{r.Colors.Primary, r.Colors.Secondary, r.Colors.Link, heading, body, fontOf(r.Fonts, "ui")} {
			if v = strings.ToLower(v); uaDefaults[v] && !strings.Contains(declared, v) {
				defaults = append(defaults, site+": "+v)
			}
		}
		rows := [][3]string{
			{"primary", r.Colors.Primary, dem.primary},
			{"background", r.Colors.Background, dem.background},
			{"palette", top(r.Colors.Palette), strings.Join(dem.palette, " ")},
			{"heading", heading, dem.heading},
			{"body", body, dem.body},
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
		benchstat.Median(cold), benchstat.Median(cached), benchstat.Median(peer), benchstat.Median(cold)/benchstat.Median(peer))
	n := len(cold)
	fmt.Printf("agreement with dembrandt on %d sites: primary %d, heading font %d, body font %d\n", n, agree.primary, agree.heading, agree.body)
	for _, d := range disagree {
		fmt.Println("  differs:", d)
	}
	fmt.Printf("browser defaults sitediag reported: %d %v\n", len(defaults), defaults)
	sites := fmt.Sprintf("%d sites of %s", n, *dir)
	benchrow.Emit(benchrow.Row{Operation: "/brand (cold), " + sites, Ours: benchstat.Median(cold), Peer: benchstat.Median(peer), Unit: "ms",
		PeerName: "dembrandt 0.18", Ratio: benchstat.Median(cold) / benchstat.Median(peer), Runs: n})
	same := agree.primary + agree.heading + agree.body
	benchrow.Emit(benchrow.Row{Operation: "/brand primary+heading+body agreeing, " + sites, Ours: float64(same), Peer: float64(3 * n),
		Unit: "values", PeerName: "dembrandt 0.18", Ratio: float64(same) / float64(3*n), Runs: n})
	// Issue 27's goal: never a user-agent default, over the six values
	// checked per site.
	benchrow.Emit(benchrow.Row{Operation: "/brand UA defaults reported, " + sites, Ours: float64(len(defaults)), Peer: float64(6 * n),
		Unit: "values", PeerName: "values checked", Ratio: float64(len(defaults)) / float64(6*n), Goal: "<= 0", Runs: n})
}

// uaDefaults are Chromium's own values for unstyled elements (button
// and input greys, link blues, its default text and control fonts on
// Linux): none is a brand's, unless the site names it itself (siteText).
var uaDefaults = map[string]bool{"#efefef": true, "#e9e9ed": true, "#0000ee": true, "#551a8b": true, "#767676": true,
	"times new roman": true, "arial": true, "system-ui": true}

// siteText is the text of a fixture site's files, in lower case: a
// value it contains (font-family: Arial) is the site's own, not the
// browser's default.
func siteText(dir string) string {
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		b.Write(data)
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
	return strings.ToLower(b.String())
}

type agreement struct{ primary, heading, body int }

func (a *agreement) add(primary, heading, body bool) {
	for _, f := range []struct {
		ok bool
		n  *int
	}{{primary, &a.primary}, {heading, &a.heading}, {body, &a.body}} {
		if f.ok {
			*f.n++
		}
	}
}

// fontOf is the family of the font with that usage, or "".
func fontOf(fonts []brand.Font, usage string) string {
	for _, f := range fonts {
		if f.Usage == usage {
			return f.Family
		}
	}
	return ""
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

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
	primary, background, heading, body string
	palette, fonts                     []string
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
	bodyCount := map[string]int{}
	for _, s := range d.Typography.Styles {
		if !seen[s.Family] {
			seen[s.Family] = true
			r.fonts = append(r.fonts, s.Context+"="+s.Family)
		}
		if r.heading == "" && (s.Context == "heading-1" || s.Context == "display") {
			r.heading = s.Family
		}
		if s.Context == "body" {
			bodyCount[s.Family]++
			if bodyCount[s.Family] > bodyCount[r.body] {
				r.body = s.Family
			}
		}
	}
	return r
}
