// Command table gathers the rows the bench scripts printed (see
// bench/benchrow) from its standard input into one table, printed, and
// into a JSON file with the machine they were measured on, so that a
// regression is one diff (bench/run.sh runs it).
//
//	table [-json bench/results.json] < output-of-the-bench-scripts
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/sitediag/sitediag/bench/benchrow"
)

// results is the JSON file's shape.
type results struct {
	Machine machine        `json:"machine"`
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
}

func main() {
	log.SetFlags(0)
	out := flag.String("json", "bench/results.json", "where to write the table as JSON")
	flag.Parse()
	var rows []benchrow.Row
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), benchrow.Tag)
		if !ok {
			continue
		}
		var r benchrow.Row
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			log.Fatalf("table: %q: %v", line, err)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
	m := describeMachine()
	fmt.Printf("%s, %d cores, %d MB, %s, %s\n", m.CPU, m.Cores, m.MemoryMB, m.Kernel, m.Date)
	fmt.Printf("%-40s %14s %14s %-28s %7s %9s %5s %5s\n", "operation", "ours", "peer", "peer is", "ratio", "goal", "runs", "load")
	for _, r := range rows {
		mark := ""
		if !r.Met() {
			mark = " (not met)"
		}
		fmt.Printf("%-40s %14s %14s %-28s %7.2f %9s %5d %5.1f%s\n", r.Operation,
			value(r.Ours, r.Unit), value(r.Peer, r.Unit), r.PeerName, r.Ratio, r.Goal, r.Runs, r.Load, mark)
	}
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(results{Machine: m, Rows: rows}); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, data.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

func value(v float64, unit string) string {
	if v >= 100 {
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
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(data))
	}
	return m
}
