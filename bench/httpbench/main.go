// Command httpbench is sitediag's side of the HTTP probe benchmarks
// (bench/ttfb.sh, bench/brokenlink.sh), and the local site they all run
// against:
//
//	httpbench serve                  serve the site on 127.0.0.1, print its URL, run until stdin closes
//	httpbench ttfb -n N URL          measure /ttfb N times; print each in milliseconds
//	httpbench brokenlink -n N URL    check the page's links N times; print each run's milliseconds
//
// The site: /fast answers at once, /slow after 20 ms, /links is a page of
// 500 links to /l/0 … /l/499 (every fiftieth answers 500, the other
// tenths 404, so 10 and 40; the rest 200). Every response carries the LinkChecker header, which
// lets linkchecker lift its per-host rate limit, so both tools run at full
// speed.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/bench/internal/benchenv"
)

// pageLinks is the size of the link page.
const pageLinks = 500

func main() {
	log.SetFlags(0)
	if len(os.Args) < 2 {
		log.Fatal("usage: httpbench serve | ttfb -n N URL | brokenlink -n N URL")
	}
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "serve":
		serve()
	case "ttfb", "brokenlink":
		fs := flag.NewFlagSet(cmd, flag.ExitOnError)
		n := fs.Int("n", 10, "runs")
		fs.Parse(args)
		if fs.NArg() != 1 {
			log.Fatalf("usage: httpbench %s -n N URL", cmd)
		}
		run(cmd, *n, fs.Arg(0))
	default:
		log.Fatalf("unknown command %q", cmd)
	}
}

func serve() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/fast", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "fast\n") })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
		io.WriteString(w, "slow\n")
	})
	mux.HandleFunc("/links", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		var b strings.Builder
		b.WriteString("<!doctype html><title>links</title><ul>\n")
		for i := range pageLinks {
			fmt.Fprintf(&b, "<li><a href=\"/l/%d\">link %d</a></li>\n", i, i)
		}
		b.WriteString("</ul>\n")
		io.WriteString(w, b.String())
	})
	mux.HandleFunc("/l/", func(w http.ResponseWriter, r *http.Request) {
		i, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/l/"))
		w.Header().Set("Content-Type", "text/plain")
		switch {
		case i%50 == 49:
			w.WriteHeader(http.StatusInternalServerError)
		case i%10 == 9:
			w.WriteHeader(http.StatusNotFound)
		}
		io.WriteString(w, "target\n")
	})
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("LinkChecker", "allow")
		mux.ServeHTTP(w, r)
	})
	fmt.Printf("http://%s\n", ln.Addr())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	log.Fatal(http.Serve(ln, handler))
}

func run(cmd string, n int, target string) {
	c := benchenv.Client(sitediag.Config{})
	defer c.Close()
	ctx := context.Background()
	for range n {
		switch cmd {
		case "ttfb":
			res, err := c.TTFB(ctx, target, sitediag.TTFBOptions{})
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("%.3f\n", res.TTFB)
		case "brokenlink":
			start := time.Now()
			res, err := c.BrokenLink(ctx, target, sitediag.BrokenLinkOptions{})
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("%.3f\n", float64(time.Since(start))/float64(time.Millisecond))
			fmt.Fprintf(os.Stderr, "sitediag: %d links, %+v\n", len(res.Links), res.Summary)
		}
	}
}
