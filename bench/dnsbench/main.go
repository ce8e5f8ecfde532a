// Command dnsbench times sitediag's DNS record lookup beside dig on the
// same local DNS server, and checks that both see the same records.
//
// It starts a miekg/dns server on 127.0.0.1 (UDP and TCP, random port)
// that serves one name with all nine supported record types, mounts the
// HTTP API on a loopback listener, and then, N times each: POSTs
// /dnsrecord for all nine types, calls Client.DNSRecords, runs dig nine
// times in a row (one process per type, as a shell script would), and
// runs one dig process that asks the nine questions in turn. It prints
// the median of each and the ratios. Nothing here fails on a timing.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/bench/benchrow"
	"github.com/sitediag/sitediag/bench/internal/benchapi"
	"github.com/sitediag/sitediag/bench/internal/benchenv"
	"github.com/sitediag/sitediag/bench/internal/benchstat"
	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/httpapi"
)

const name = "bench.test"

// zone has records of every type at name; CNAME lives on an alias, so
// name's CNAME set is empty for both tools.
var zone = []string{
	"bench.test. 300 IN A 192.0.2.10",
	"bench.test. 300 IN A 192.0.2.11",
	"bench.test. 300 IN AAAA 2001:db8::10",
	"bench.test. 300 IN MX 10 mx1.bench.test.",
	"bench.test. 300 IN MX 20 mx2.bench.test.",
	`bench.test. 300 IN CAA 0 issue "ca.example"`,
	`bench.test. 300 IN CAA 128 iodef "mailto:sec@bench.test"`,
	"bench.test. 300 IN NS ns1.bench.test.",
	"bench.test. 300 IN NS ns2.bench.test.",
	"bench.test. 300 IN SOA ns1.bench.test. hostmaster.bench.test. 2024010101 7200 3600 1209600 300",
	"bench.test. 300 IN SRV 10 60 443 web1.bench.test.",
	"bench.test. 300 IN SRV 20 10 443 web2.bench.test.",
	`bench.test. 300 IN TXT "v=spf1 " "mx -all"`,
	`bench.test. 300 IN TXT "site-verification=abc123"`,
	"www.bench.test. 300 IN CNAME bench.test.",
}

func main() {
	n := flag.Int("n", 30, "iterations of each measurement")
	dig := flag.String("dig", "dig", "dig binary")
	flag.Parse()
	if err := run(*n, *dig); err != nil {
		fmt.Fprintln(os.Stderr, "dnsbench:", err)
		os.Exit(1)
	}
}

func run(n int, dig string) error {
	srv := benchenv.DNS(zone...)
	defer srv.Close()
	host, port, _ := net.SplitHostPort(srv.Addr)

	client, err := sitediag.New(sitediag.Config{DNSServers: []string{srv.Addr}})
	if err != nil {
		return err
	}
	defer client.Close()
	api := benchapi.Serve(client, httpapi.Options{})
	defer api.Close()
	hc := &http.Client{Timeout: 30 * time.Second}
	dnsrecord := func(host string) (map[string]json.RawMessage, error) { return apiRecords(hc, api.URL, host) }

	digArgsFor := func(qname string, types ...string) []string {
		args := []string{"@" + host, "-p", port, "+short", "+tries=1", "+time=2"}
		for _, t := range types {
			args = append(args, qname, t)
		}
		return args
	}
	digArgs := func(types ...string) []string { return digArgsFor(name, types...) }
	ctx := context.Background()

	// Cross-check once, before timing.
	res, err := dnsrecord(name)
	if err != nil {
		return err
	}
	lib, err := client.DNSRecords(ctx, name, sitediag.DNSRecordsOptions{})
	if err != nil {
		return err
	}
	var libData map[string]json.RawMessage
	if err := json.Unmarshal(mustJSON(lib), &libData); err != nil {
		return err
	}
	mismatches := 0
	for _, t := range dns.RecordTypes() {
		out, err := exec.Command(dig, digArgs(t)...).Output()
		if err != nil {
			return fmt.Errorf("dig %s: %w", t, err)
		}
		digSet := digLines(t, string(out))
		apiSet, libSet := digForm(t, res[t]), digForm(t, libData[t])
		status := "agree"
		if !slices.Equal(digSet, apiSet) || !slices.Equal(digSet, libSet) {
			status = "DIFFER"
			mismatches++
		}
		fmt.Printf("cross-check %-5s %-6s dig=%q sitediag=%q\n", t, status, digSet, apiSet)
	}

	// name has no CNAME, so check one on the alias too.
	alias := "www." + name
	out, err := exec.Command(dig, digArgsFor(alias, "CNAME")...).Output()
	if err != nil {
		return fmt.Errorf("dig CNAME: %w", err)
	}
	aliasData, err := dnsrecord(alias)
	if err != nil {
		return err
	}
	digSet, apiSet := digLines("CNAME", string(out)), digForm("CNAME", aliasData["CNAME"])
	status := "agree"
	if !slices.Equal(digSet, apiSet) {
		status = "DIFFER"
		mismatches++
	}
	fmt.Printf("cross-check CNAME %-6s dig=%q sitediag=%q (%s)\n", status, digSet, apiSet, alias)

	measure := func(f func() error) (time.Duration, error) {
		var times []time.Duration
		for range n {
			start := time.Now()
			if err := f(); err != nil {
				return 0, err
			}
			times = append(times, time.Since(start))
		}
		slices.Sort(times)
		return times[len(times)/2], nil
	}
	apiMedian, err := measure(func() error { _, err := dnsrecord(name); return err })
	if err != nil {
		return err
	}
	libMedian, err := measure(func() error {
		_, err := client.DNSRecords(ctx, name, sitediag.DNSRecordsOptions{})
		return err
	})
	if err != nil {
		return err
	}
	digMedian, err := measure(func() error {
		for _, t := range dns.RecordTypes() {
			if err := exec.Command(dig, digArgs(t)...).Run(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	dig1Median, err := measure(func() error { return exec.Command(dig, digArgs(dns.RecordTypes()...)...).Run() })
	if err != nil {
		return err
	}

	ms := func(d time.Duration) string {
		return strconv.FormatFloat(benchstat.Millis(d), 'f', 2, 64) + " ms"
	}
	ratio := func(a, b time.Duration) string { return strconv.FormatFloat(float64(a)/float64(b), 'f', 2, 64) }
	fmt.Printf("\nnine types of %s, local miekg/dns server %s, %d runs each, medians:\n", name, srv.Addr, n)
	fmt.Printf("  sitediag POST /dnsrecord (all nine, concurrent)  %s\n", ms(apiMedian))
	fmt.Printf("  sitediag Client.DNSRecords (all nine, concurrent) %s\n", ms(libMedian))
	fmt.Printf("  dig, nine sequential processes                    %s\n", ms(digMedian))
	fmt.Printf("  dig, one process, nine sequential queries         %s\n", ms(dig1Median))
	fmt.Printf("ratio dig(9 processes) / sitediag /dnsrecord:       %s\n", ratio(digMedian, apiMedian))
	fmt.Printf("ratio dig(9 processes) / sitediag library:          %s\n", ratio(digMedian, libMedian))
	fmt.Printf("ratio dig(1 process)   / sitediag /dnsrecord:       %s\n", ratio(dig1Median, apiMedian))
	benchrow.Emit(benchrow.Row{Operation: "/dnsrecord, nine types", Ours: benchstat.Millis(apiMedian), Peer: benchstat.Millis(digMedian), Unit: "ms",
		PeerName: "dig, nine processes", Ratio: float64(apiMedian) / float64(digMedian), Runs: n})
	if mismatches > 0 {
		return fmt.Errorf("%d record sets differ between dig and sitediag", mismatches)
	}
	fmt.Println("cross-check: dig and sitediag agree on all nine types (and the alias's CNAME)")
	return nil
}

// apiRecords POSTs /dnsrecord for every type of host to the API at base
// and returns data by type.
func apiRecords(hc *http.Client, base, host string) (map[string]json.RawMessage, error) {
	body, err := benchapi.Post(hc, base, "/dnsrecord", []byte(`{"url":"`+host+`"}`))
	if err != nil {
		return nil, err
	}
	var env struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, err
	}
	return env.Data, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// digLines returns dig +short's lines for type t, sorted, with TXT
// chunks joined.
func digLines(t, out string) []string {
	lines := []string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		if t == "TXT" {
			l = strings.ReplaceAll(strings.Trim(l, `"`), `" "`, "")
		}
		lines = append(lines, l)
	}
	slices.Sort(lines)
	return lines
}

// digForm renders sitediag's JSON for type t the way dig +short prints
// it, sorted.
func digForm(t string, raw json.RawMessage) []string {
	var out []string
	fqdn := func(s string) string { return s + "." }
	switch t {
	case "A", "AAAA", "TXT":
		json.Unmarshal(raw, &out)
	case "CNAME", "NS":
		var names []string
		json.Unmarshal(raw, &names)
		for _, n := range names {
			out = append(out, fqdn(n))
		}
	case "MX":
		var mx []dns.MX
		json.Unmarshal(raw, &mx)
		for _, m := range mx {
			out = append(out, fmt.Sprintf("%d %s", m.Priority, fqdn(m.Exchange)))
		}
	case "CAA":
		var caa []dns.CAA
		json.Unmarshal(raw, &caa)
		for _, c := range caa {
			out = append(out, fmt.Sprintf("%d %s %q", c.Critical, c.Tag, c.Value))
		}
	case "SRV":
		var srv []dns.SRV
		json.Unmarshal(raw, &srv)
		for _, s := range srv {
			out = append(out, fmt.Sprintf("%d %d %d %s", s.Priority, s.Weight, s.Port, fqdn(s.Name)))
		}
	case "SOA":
		var soa *dns.SOA
		if json.Unmarshal(raw, &soa) == nil && soa != nil {
			out = append(out, fmt.Sprintf("%s %s %d %d %d %d %d", fqdn(soa.NSName), fqdn(soa.Hostmaster),
				soa.Serial, soa.Refresh, soa.Retry, soa.Expire, soa.MinTTL))
		}
	}
	if out == nil {
		out = []string{}
	}
	slices.Sort(out)
	return out
}
