// Command contentbench is sitediag's side of bench/content.sh. It serves
// the corpus directory on 127.0.0.1, runs MetaScrape (renderJS off) and
// WebScrape text-llm on every page, runs the peers (bench/content/peers.mjs:
// metascraper, open-graph-scraper, Readability on jsdom) on the same
// pages, and prints:
//
//   - per headline field, how often sitediag agrees with metascraper and
//     with open-graph-scraper on the pages where the peer found a value;
//
//   - the mean token F1 of sitediag's text-llm against Readability's text;
//
//   - the median time per page of sitediag and of metascraper, and of
//     text-llm and Readability;
//
//   - the table rows (bench/benchrow) with issue 11's goals: each field at
//     least 95 % in agreement with metascraper (the row is the field that
//     agrees least), a mean F1 of at least 0.9, /metascraping faster than
//     metascraper.
//
//     contentbench [-v] CORPUS_DIR PEERS_MJS
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/bench/benchrow"
	"github.com/sitediag/sitediag/bench/internal/benchenv"
	"github.com/sitediag/sitediag/bench/internal/benchstat"
)

// fields are the headline fields compared.
var fields = []string{"title", "description", "image", "author", "date", "publisher", "lang", "url"}

type peerPage struct {
	Page          string         `json:"page"`
	Metascraper   map[string]any `json:"metascraper"`
	MetascraperMs float64        `json:"metascraperMs"`
	OGS           map[string]any `json:"ogs"`
	Readability   string         `json:"readability"`
	ReadabilityMs float64        `json:"readabilityMs"`
}

func main() {
	log.SetFlags(0)
	verbose := flag.Bool("v", false, "print every disagreement")
	args := benchenv.Args(2, "contentbench [-v] CORPUS_DIR PEERS_MJS")
	dir, peers := args[0], args[1]
	entries, err := filepath.Glob(filepath.Join(dir, "*.html"))
	if err != nil || len(entries) == 0 {
		log.Fatalf("no pages in %s", dir)
	}
	var pages []string
	for _, e := range entries {
		pages = append(pages, filepath.Base(e))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	// Like most servers, no charset in the header: the pages declare
	// theirs (Go's FileServer would claim utf-8 for every .html).
	files := http.FileServer(http.Dir(dir))
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".html") {
			w.Header().Set("Content-Type", "text/html")
		}
		files.ServeHTTP(w, r)
	}))
	site := &url.URL{Scheme: "http", Host: ln.Addr().String()}
	base := site.String()

	c := benchenv.Client(sitediag.Config{})
	defer c.Close()
	ctx := context.Background()
	ours := map[string]map[string]string{}
	texts := map[string]string{}
	var ourMs, ourTextMs []float64
	for _, p := range pages {
		start := time.Now()
		res, err := c.MetaScrape(ctx, base+"/"+p, sitediag.MetaScrapeOptions{RenderJS: sitediag.Off})
		ourMs = append(ourMs, benchstat.Millis(time.Since(start)))
		if err != nil {
			ours[p] = map[string]string{}
			if *verbose {
				fmt.Printf("%s: sitediag: %v\n", p, err)
			}
		} else {
			m := res.Metadata
			ours[p] = map[string]string{"title": m.Title, "description": m.Description, "image": m.Image, "author": m.Author,
				"date": firstOf(m.DateModified, m.Date), "publisher": m.Publisher, "lang": m.Lang, "url": m.URL}
		}
		start = time.Now()
		ws, err := c.WebScrape(ctx, base+"/"+p, sitediag.WebScrapeOptions{RenderJS: sitediag.Off, Format: sitediag.ScrapeFormats{"text-llm"}})
		ourTextMs = append(ourTextMs, benchstat.Millis(time.Since(start)))
		if err == nil {
			texts[p], _ = ws.Content["text-llm"].(string)
		}
	}

	peerRes := benchenv.NodeJSON[peerPage](nil, append([]string{peers, base}, pages...)...)

	fmt.Printf("content: %d pages of %s\n\n", len(pages), dir)
	fmt.Printf("%-12s %22s %22s\n", "field", "vs metascraper", "vs open-graph-scraper")
	least, leastAgree, leastN := "", 0, 0
	for _, f := range fields {
		var ms, msN, og, ogN int
		for _, pp := range peerRes {
			our := ours[pp.Page][f]
			if v := str(pp.Metascraper[f]); v != "" {
				msN++
				if same(f, our, v) {
					ms++
				} else if *verbose {
					fmt.Printf("  %s %s: sitediag %q, metascraper %q\n", pp.Page, f, our, v)
				}
			}
			if v := ogsField(pp.OGS, f); v != "" {
				if f == "image" || f == "url" {
					v = resolve(site.JoinPath(pp.Page), v) // open-graph-scraper returns them as written
				}
				ogN++
				if same(f, our, v) {
					og++
				} else if *verbose {
					fmt.Printf("  %s %s: sitediag %q, open-graph-scraper %q\n", pp.Page, f, our, v)
				}
			}
		}
		fmt.Printf("%-12s %22s %22s\n", f, pct(ms, msN), pct(og, ogN))
		if msN > 0 && (least == "" || ms*leastN < leastAgree*msN) {
			least, leastAgree, leastN = f, ms, msN
		}
	}
	var f1s []float64
	for _, pp := range peerRes {
		if strings.TrimSpace(pp.Readability) == "" && texts[pp.Page] == "" {
			continue
		}
		f1 := tokenF1(texts[pp.Page], pp.Readability)
		f1s = append(f1s, f1)
		if *verbose && f1 < 0.9 {
			fmt.Printf("  %s text-llm F1 %.3f\n", pp.Page, f1)
		}
	}
	fmt.Printf("\ntext-llm vs Readability: mean token F1 %.3f over %d pages\n", mean(f1s), len(f1s))
	var theirMs, theirTextMs []float64
	for _, pp := range peerRes {
		theirMs = append(theirMs, pp.MetascraperMs)
		theirTextMs = append(theirTextMs, pp.ReadabilityMs)
	}
	a, b := benchstat.Median(ourMs), benchstat.Median(theirMs)
	fmt.Printf("time per page (median, fetch included): sitediag renderJS:false %.2f ms, metascraper %.2f ms, ratio %.2f\n", a, b, a/b)
	ta, tb := benchstat.Median(ourTextMs), benchstat.Median(theirTextMs)
	fmt.Printf("time per page (median, fetch included): sitediag text-llm %.2f ms, Readability on jsdom %.2f ms, ratio %.2f\n", ta, tb, ta/tb)
	benchrow.Emit(benchrow.Row{Operation: "/metascraping per page", Ours: a, Peer: b, Unit: "ms",
		PeerName: "metascraper", Ratio: a / b, Goal: "< 1", Runs: len(ourMs)})
	benchrow.Emit(benchrow.Row{Operation: "/metascraping, least-agreeing field (" + least + ")", Ours: float64(leastAgree), Peer: float64(leastN),
		Unit: "pages", PeerName: "metascraper", Ratio: float64(leastAgree) / float64(max(leastN, 1)), Goal: ">= 0.95", Runs: leastN})
	benchrow.Emit(benchrow.Row{Operation: "/web-scraping text-llm per page", Ours: ta, Peer: tb, Unit: "ms",
		PeerName: "Readability on jsdom", Ratio: ta / tb, Runs: len(ourTextMs)})
	benchrow.Emit(benchrow.Row{Operation: "/web-scraping text-llm, mean token F1", Ours: mean(f1s), Peer: 1, Unit: "F1",
		PeerName: "Readability on jsdom", Ratio: mean(f1s), Goal: ">= 0.9", Runs: len(f1s)})
}

// resolve makes ref absolute against page, as a page's own URL; a ref
// that does not parse stays as it is.
func resolve(page *url.URL, ref string) string {
	r, err := page.Parse(ref)
	if err != nil {
		return ref
	}
	return r.String()
}

func firstOf(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

func str(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

// ogsField maps a headline field to open-graph-scraper's result.
func ogsField(r map[string]any, f string) string {
	switch f {
	case "title":
		return str(r["ogTitle"])
	case "description":
		return str(r["ogDescription"])
	case "image":
		if imgs, ok := r["ogImage"].([]any); ok && len(imgs) > 0 {
			if m, ok := imgs[0].(map[string]any); ok {
				return str(m["url"])
			}
		}
	case "author":
		return str(r["author"])
	case "date":
		return firstOf(str(r["articleModifiedTime"]), str(r["articlePublishedTime"]), str(r["ogDate"]))
	case "publisher":
		return str(r["ogSiteName"])
	case "lang":
		return str(r["ogLocale"])
	case "url":
		return str(r["ogUrl"])
	}
	return ""
}

// same compares two values of field f the way a person would: dates as
// instants, languages by their primary subtag, text with white space
// folded and case ignored.
func same(f, a, b string) bool {
	switch f {
	case "date":
		ta, ea := parseTime(a)
		tb, eb := parseTime(b)
		return ea == nil && eb == nil && ta.Equal(tb)
	case "lang":
		return primary(a) == primary(b)
	}
	return fold(a) == fold(b)
}

func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("not a date: %q", s)
}

func primary(lang string) string {
	lang = strings.ToLower(strings.TrimSpace(lang))
	p, _, _ := strings.Cut(strings.ReplaceAll(lang, "_", "-"), "-")
	return p
}

// fold folds white space, case and typographic quotes (metascraper
// turns ' into ’ in what it returns).
func fold(s string) string {
	s = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`).Replace(s)
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

func pct(n, of int) string {
	if of == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%d/%d (%.0f%%)", n, of, 100*float64(n)/float64(of))
}

// tokenF1 is the F1 of the multisets of lower-case word tokens.
func tokenF1(got, want string) float64 {
	g, w := tokens(got), tokens(want)
	if len(g) == 0 || len(w) == 0 {
		if len(g) == len(w) {
			return 1
		}
		return 0
	}
	count := map[string]int{}
	for _, t := range w {
		count[t]++
	}
	common := 0
	for _, t := range g {
		if count[t] > 0 {
			count[t]--
			common++
		}
	}
	if common == 0 {
		return 0
	}
	p, r := float64(common)/float64(len(g)), float64(common)/float64(len(w))
	return 2 * p * r / (p + r)
}

func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}
