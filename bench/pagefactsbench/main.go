// Command pagefactsbench is the /metascraping half of bench/pagefacts.sh:
// for each page it runs MetaScrape (renderJS off, as metascraper reads
// the served HTML) and metascraper 5.x's date, author, logo and
// logo-favicon rules (bench/pagefacts/peers.mjs), each page on a server
// of its own (so that /favicon.ico is the page's own site's), and prints
// the date, author and logo each found with the agreement figures.
//
// metascraper's date is the modified date when a page gives one; the
// reference for sitediag's date (the publication date) is metascraper's
// datePublished, else its date when the page gives no modified date.
// Dates agree on the same UTC day; authors when equal ignoring case.
// The agreement and the time per page are rows of the benchmark table
// (bench/benchrow); the goals are issue 27's: date and author agreement
// at least 90 %, a logo wherever metascraper finds one.
//
//	pagefactsbench [-v] PEERS_MJS SITES_DIR PAGES_DIR
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/bench/benchrow"
	"github.com/sitediag/sitediag/bench/internal/benchenv"
	"github.com/sitediag/sitediag/bench/internal/benchstat"
)

// page is one page of the corpus, served by a server of its own.
type page struct {
	name string
	url  string
	srv  *httptest.Server
}

// peer is what peers.mjs prints for a page.
type peer struct {
	URL           string  `json:"url"`
	Date          string  `json:"date"`
	DatePublished string  `json:"datePublished"`
	DateModified  string  `json:"dateModified"`
	Author        string  `json:"author"`
	Logo          string  `json:"logo"`
	Ms            float64 `json:"ms"`
}

func main() {
	log.SetFlags(0)
	verbose := flag.Bool("v", false, "print every page, not only disagreements")
	args := benchenv.Args(3, "pagefactsbench [-v] PEERS_MJS SITES_DIR PAGES_DIR")
	pages := servePages(args[1], args[2])
	defer func() {
		for _, p := range pages {
			p.srv.Close()
		}
	}()
	c := benchenv.Client(sitediag.Config{})
	defer c.Close()

	peers := runPeers(args[0], pages)
	ctx := context.Background()
	var s score
	var ours []float64
	for _, p := range pages {
		start := time.Now()
		res, err := c.MetaScrape(ctx, p.url, sitediag.MetaScrapeOptions{RenderJS: sitediag.Off})
		ours = append(ours, benchstat.Millis(time.Since(start)))
		if err != nil {
			log.Printf("%s: %v", p.name, err)
			continue
		}
		m, ref := res.Metadata, peers[p.url]
		refDate := ref.DatePublished
		if refDate == "" && ref.DateModified == "" {
			refDate = ref.Date
		}
		dateOK := sameDay(m.Date, refDate)
		authorOK := strings.EqualFold(strings.Join(strings.Fields(m.Author), " "), strings.Join(strings.Fields(ref.Author), " "))
		logoOK := ref.Logo == "" || m.Logo != ""
		s.add(dateOK, authorOK, logoOK, m.Logo != "" && m.Logo == ref.Logo, ref.Logo != "", m.Logo != "")
		if *verbose || !dateOK || !authorOK || !logoOK {
			fmt.Printf("%s\n  date   %-26s metascraper %-26s (date %s)%s\n  author %-26q metascraper %-26q%s\n  logo   %s\n         metascraper %s%s\n",
				p.name, m.Date, refDate, ref.Date, mark(dateOK), m.Author, ref.Author, mark(authorOK), m.Logo, ref.Logo, mark(logoOK))
		}
	}
	var theirs []float64
	for _, p := range peers {
		theirs = append(theirs, p.Ms)
	}
	n := float64(len(pages))
	fmt.Printf("\n%d pages (%d sites of bench/pagefacts/sites, the rest testdata/pages)\n", len(pages), countDirs(args[1]))
	fmt.Printf("date agreement   %d/%d (%.0f %%)\n", s.date, len(pages), 100*float64(s.date)/n)
	fmt.Printf("author agreement %d/%d (%.0f %%)\n", s.author, len(pages), 100*float64(s.author)/n)
	fmt.Printf("logo: metascraper finds one on %d pages, sitediag on %d; sitediag finds one wherever metascraper does on %d/%d, the same URL on %d\n",
		s.theirLogos, s.ourLogos, s.logoCovered, len(pages), s.sameLogo)
	fmt.Printf("median ms per page: sitediag %.1f, metascraper %.1f (its fetch included)\n", benchstat.Median(ours), benchstat.Median(theirs))
	agreement := func(what string, agree, cases int, goal string) {
		benchrow.Emit(benchrow.Row{Operation: "/metascraping " + what, Ours: float64(agree), Peer: float64(cases), Unit: "pages",
			PeerName: "metascraper 5 rules", Ratio: float64(agree) / float64(max(cases, 1)), Goal: goal, Runs: cases})
	}
	agreement("date, pages agreeing", s.date, len(pages), ">= 0.9")
	agreement("author, pages agreeing", s.author, len(pages), ">= 0.9")
	agreement("logo where metascraper has one", s.bothLogos, s.theirLogos, ">= 1")
	benchrow.Emit(benchrow.Row{Operation: "/metascraping date+author+logo per page", Ours: benchstat.Median(ours), Peer: benchstat.Median(theirs),
		Unit: "ms", PeerName: "metascraper 5 rules", Ratio: benchstat.Median(ours) / benchstat.Median(theirs), Runs: len(ours)})
}

type score struct{ date, author, logoCovered, sameLogo, theirLogos, ourLogos, bothLogos int }

func (s *score) add(date, author, logo, same, theirs, ours bool) {
	for _, f := range []struct {
		ok bool
		n  *int
	}{{date, &s.date}, {author, &s.author}, {logo, &s.logoCovered}, {same, &s.sameLogo}, {theirs, &s.theirLogos}, {ours, &s.ourLogos},
		{theirs && ours, &s.bothLogos}} {
		if f.ok {
			*f.n++
		}
	}
}

func mark(ok bool) string {
	if ok {
		return ""
	}
	return "   <- differs"
}

// sameDay reports whether two RFC 3339 dates fall on the same UTC day
// (or are both absent).
func sameDay(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	ta, err1 := time.Parse(time.RFC3339Nano, a)
	tb, err2 := time.Parse(time.RFC3339Nano, b)
	return err1 == nil && err2 == nil && ta.UTC().Format(time.DateOnly) == tb.UTC().Format(time.DateOnly)
}

// servePages serves each folder of sites at its own server's root and
// each page of pagesDir from a server of its own.
func servePages(sites, pagesDir string) []page {
	var out []page
	dirs, err := os.ReadDir(sites)
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range dirs {
		if d.IsDir() {
			srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(sites, d.Name()))))
			out = append(out, page{name: "sites/" + d.Name(), url: srv.URL + "/", srv: srv})
		}
	}
	files, _ := filepath.Glob(filepath.Join(pagesDir, "*.html"))
	sort.Strings(files)
	for _, f := range files {
		srv := httptest.NewServer(http.FileServer(http.Dir(pagesDir)))
		out = append(out, page{name: "pages/" + filepath.Base(f), url: srv.URL + "/" + filepath.Base(f), srv: srv})
	}
	return out
}

func countDirs(dir string) int {
	entries, _ := os.ReadDir(dir)
	n := 0
	for _, e := range entries {
		if e.IsDir() {
			n++
		}
	}
	return n
}

// runPeers runs peers.mjs on every page, in UTC, and indexes its answers
// by URL.
func runPeers(script string, pages []page) map[string]peer {
	args := []string{script}
	for _, p := range pages {
		args = append(args, p.url)
	}
	peers := map[string]peer{}
	for _, p := range benchenv.NodeJSON[peer]([]string{"TZ=UTC"}, args...) {
		peers[p.URL] = p
	}
	return peers
}
