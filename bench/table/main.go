// Command table gathers the rows the bench scripts printed (see
// bench/benchrow) from its standard input into one table, printed, and
// into a JSON file with the machine they were measured on, so that a
// regression is one diff (bench/run.sh runs it). Above the table it
// prints the machine, the load average at the start (-load-start) and
// now, and each script's wall time from the lines bench/run.sh tags
// with ScriptTag.
//
//	table [-json bench/results.json] [-load-start "1.00 0.50 0.20"] < output-of-the-bench-scripts
//	table -markdown bench/results.json     (the same as Markdown, for docs/benchmarks.md)
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sitediag/sitediag/bench/benchrow"
)

// ScriptTag starts the line bench/run.sh prints after each script: a
// script record in JSON.
const ScriptTag = "BENCHSCRIPT "

// results is the JSON file's shape.
type results struct {
	Machine machine        `json:"machine"`
	Scripts []script       `json:"scripts,omitempty"`
	Rows    []benchrow.Row `json:"rows"`
}

// machine is what the rows were measured on.
type machine struct {
	CPU      string `json:"cpu"`
	Cores    int    `json:"cores"`
	MemoryMB int    `json:"memoryMB"`
	Kernel   string `json:"kernel"`
	Go       string `json:"go"`
	Date     string `json:"date"`
	// LoadStart and LoadEnd are the load averages (1, 5 and 15 minutes)
	// when the run started and when it ended: the machine may be shared.
	LoadStart string `json:"loadStart,omitempty"`
	LoadEnd   string `json:"loadEnd"`
}

// script is one bench script's run.
type script struct {
	// Script is the script as run, with its settings and arguments:
	// "TESTSSL_RUNS=0 tlsscan.sh".
	Script  string `json:"script"`
	Seconds int    `json:"seconds"`
	// Exit is the script's exit status; not 0 means it failed.
	Exit      int    `json:"exit"`
	LoadStart string `json:"loadStart"`
	LoadEnd   string `json:"loadEnd"`
}

func main() {
	log.SetFlags(0)
	out := flag.String("json", "bench/results.json", "where to write the table as JSON")
	loadStart := flag.String("load-start", "", "the load averages (1, 5, 15 minutes) when the run started")
	markdown := flag.String("markdown", "", "instead: print this results JSON file as Markdown, for docs/benchmarks.md")
	flag.Parse()
	if *markdown != "" {
		data, err := os.ReadFile(*markdown)
		if err != nil {
			log.Fatal(err)
		}
		printMarkdown(decode[results](string(data)))
		return
	}
	var res results
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), benchrow.Tag); ok {
			res.Rows = append(res.Rows, decode[benchrow.Row](line))
		} else if line, ok := strings.CutPrefix(sc.Text(), ScriptTag); ok {
			res.Scripts = append(res.Scripts, decode[script](line))
		}
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
	res.Machine = describeMachine()
	res.Machine.LoadStart = *loadStart
	printTable(res)
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, data.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

// decode reads one tagged line's JSON.
func decode[T any](line string) T {
	var v T
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		log.Fatalf("table: %q: %v", line, err)
	}
	return v
}

// printTable writes the machine, the scripts' wall times and the table.
func printTable(res results) {
	m := res.Machine
	fmt.Printf("machine: %s, %d cores, %d MB, %s, %s, %s\n", m.CPU, m.Cores, m.MemoryMB, m.Kernel, m.Go, m.Date)
	fmt.Printf("load average (1, 5, 15 min): at start %s, at end %s\n", orNone(m.LoadStart), m.LoadEnd)
	if len(res.Scripts) > 0 {
		total := 0
		fmt.Println()
		for _, s := range res.Scripts {
			failed := ""
			if s.Exit != 0 {
				failed = fmt.Sprintf("  FAILED (exit %d)", s.Exit)
			}
			fmt.Printf("%-32s %6d s  load %s → %s%s\n", s.Script, s.Seconds, s.LoadStart, s.LoadEnd, failed)
			total += s.Seconds
		}
		fmt.Printf("%-32s %6d s\n", "all scripts", total)
	}
	width := len("operation")
	for _, r := range res.Rows {
		width = max(width, utf8.RuneCountInString(r.Operation))
	}
	fmt.Println()
	fmt.Printf("%-*s %14s %14s %-28s %7s %7s %5s %5s\n", width, "operation", "ours", "peer", "peer is", "ratio", "goal", "runs", "load")
	for _, r := range res.Rows {
		mark := ""
		if !r.Met() {
			mark = " (not met)"
		}
		fmt.Printf("%-*s %14s %14s %-28s %7.3f %7s %5d %5.1f%s\n", width, r.Operation,
			value(r.Ours, r.Unit), value(r.Peer, r.Unit), r.PeerName, r.Ratio, r.Goal, r.Runs, r.Load, mark)
	}
}

// printMarkdown writes the machine, the scripts' wall times and the
// table as Markdown.
func printMarkdown(res results) {
	m := res.Machine
	fmt.Printf("Machine: %s, %d cores, %d MB, %s, %s; %s; load average (1, 5, 15 min) %s at the start, %s at the end.\n\n",
		m.CPU, m.Cores, m.MemoryMB, m.Kernel, m.Go, m.Date, orNone(m.LoadStart), orNone(m.LoadEnd))
	if len(res.Scripts) > 0 {
		fmt.Println("| script | wall time | load average at start → end |")
		fmt.Println("| --- | ---: | --- |")
		total := 0
		for _, s := range res.Scripts {
			failed := ""
			if s.Exit != 0 {
				failed = fmt.Sprintf(" (failed, exit %d)", s.Exit)
			}
			fmt.Printf("| %s%s | %d s | %s → %s |\n", s.Script, failed, s.Seconds, s.LoadStart, s.LoadEnd)
			total += s.Seconds
		}
		fmt.Printf("| all | %d s | |\n\n", total)
	}
	fmt.Println("| operation | ours | peer | peer is | ratio | goal | runs | load |")
	fmt.Println("| --- | ---: | ---: | --- | ---: | --- | ---: | ---: |")
	for _, r := range res.Rows {
		goal := strings.NewReplacer("<=", "≤", ">=", "≥").Replace(r.Goal)
		if !r.Met() {
			goal += " (not met)"
		}
		fmt.Printf("| %s | %s | %s | %s | %.3g | %s | %d | %.1f |\n", r.Operation, value(r.Ours, r.Unit), value(r.Peer, r.Unit),
			r.PeerName, r.Ratio, goal, r.Runs, r.Load)
	}
}

func orNone(s string) string {
	if s == "" {
		return "(not given)"
	}
	return s
}

func value(v float64, unit string) string {
	if v >= 100 || v == math.Trunc(v) {
		return fmt.Sprintf("%.0f %s", v, unit)
	}
	return fmt.Sprintf("%.2f %s", v, unit)
}

// describeMachine reads the CPU model, memory and kernel from /proc.
func describeMachine() machine {
	m := machine{Cores: runtime.NumCPU(), Go: runtime.Version(), Date: time.Now().UTC().Format(time.RFC3339)}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(data), "\n") {
			if name, ok := strings.CutPrefix(line, "model name"); ok {
				m.CPU = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int
		fmt.Sscanf(string(data), "MemTotal: %d kB", &kb)
		m.MemoryMB = kb / 1024
	}
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.LoadEnd = strings.Join(strings.Fields(string(data))[:3], " ")
	}
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(data))
	}
	return m
}
