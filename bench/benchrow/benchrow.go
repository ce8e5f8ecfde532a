// Package benchrow is how a bench program hands one line of the
// benchmark table to bench/run.sh: Emit prints it on stdout, tagged, and
// bench/table gathers the tagged lines into the table and its JSON.
// Bench scripts in bash do the same with the row function of
// bench/common.bash.
package benchrow

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// Tag starts every row line; bench/table reads only those lines.
const Tag = "BENCHROW "

// Row is one operation measured beside its peer.
type Row struct {
	// Operation names what was measured: "/openport 1-1000 (loopback)".
	Operation string `json:"operation"`
	// Ours and Peer are the medians of sitediag and of the peer, in Unit.
	Ours float64 `json:"ours"`
	Peer float64 `json:"peer"`
	// Unit is "ms", "req/s" or "MB".
	Unit string `json:"unit"`
	// PeerName says what the peer is: "nmap -sT", "cold chromium --screenshot".
	PeerName string `json:"peerName"`
	// Ratio is the median of the runs' ours/peer ratios, or the ratio of
	// the medians when the runs do not pair up.
	Ratio float64 `json:"ratio"`
	// Goal is the target for Ratio: "<= 0.3", ">= 0.8" or "< 1";
	// empty when the row has none.
	Goal string `json:"goal,omitempty"`
	// Runs is how many measurements the medians are over: runs, or pages,
	// sites or cases measured once each. For an agreement row (Ours
	// agreeing cases of Peer cases) it is the number of cases.
	Runs int `json:"runs"`
	// Load is the one-minute load average when the row was measured: the
	// machine may be shared.
	Load float64 `json:"load"`
}

// Met reports whether Ratio meets Goal; true when there is no goal,
// false when the goal cannot be read.
func (r Row) Met() bool {
	if r.Goal == "" {
		return true
	}
	op, limit, ok := strings.Cut(r.Goal, " ")
	v, err := strconv.ParseFloat(limit, 64)
	if !ok || err != nil {
		return false
	}
	switch op {
	case "<=":
		return r.Ratio <= v
	case "<":
		return r.Ratio < v
	case ">=":
		return r.Ratio >= v
	case ">":
		return r.Ratio > v
	}
	return false
}

// Emit fills in r's load average, rounds its figures to three decimals
// and prints r as a tagged line.
func Emit(r Row) {
	r.Load = LoadAverage()
	for _, v := range []*float64{&r.Ours, &r.Peer, &r.Ratio} {
		*v = math.Round(*v*1000) / 1000
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the goals' "<=" as written
	if err := enc.Encode(r); err != nil {
		panic(err) // a Row always marshals
	}
	fmt.Print(Tag + b.String())
}

// LoadAverage is the one-minute load average, or 0 where /proc has none.
func LoadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(data), " ")
	v, _ := strconv.ParseFloat(first, 64)
	return v
}
