// Command tlsscan runs sitediag's TLS scan on one target and prints the
// result as JSON: the "ours" side of bench/tlsscan.sh. Loopback is
// allowed, as the bench's target is local.
package main

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/bench/internal/benchenv"
	"github.com/sitediag/sitediag/tls"
)

// verdictLine sums a result up as bench/tlsscan.sh prints it beside the
// peers': "TLSv1.2:2 TLSv1.3:3 | kx TLSv1.2 DH-1024(RFC 2409 Oakley group 2) | vuln logjam beast |
// checks heartbeat=false … | chain complete".
func verdictLine(r *tls.Result) string {
	var parts, kx, vulns []string
	lists := []struct {
		name string
		ps   tls.ProtocolSuites
	}{{"SSLv2", r.CipherSuites.SSL2}, {"SSLv3", r.CipherSuites.SSL3}, {"TLSv1.0", r.CipherSuites.TLS10},
		{"TLSv1.1", r.CipherSuites.TLS11}, {"TLSv1.2", r.CipherSuites.TLS12}, {"TLSv1.3", r.CipherSuites.TLS13}}
	for _, l := range lists {
		if len(l.ps.Suites) == 0 {
			continue
		}
		parts = append(parts, l.name+":"+strconv.Itoa(len(l.ps.Suites)))
		for _, g := range l.ps.KeyExchange {
			item := l.name + " " + g.Name
			if g.Type == "DH" {
				item += "-" + strconv.Itoa(g.Bits)
			}
			if g.CommonPrime != nil {
				item += "(common)"
			}
			kx = append(kx, item)
		}
	}
	v := r.Vulnerabilities
	for _, f := range []struct {
		name string
		f    tls.Finding
	}{{"poodle", v.Poodle.Finding}, {"drown", v.DROWN}, {"freak", v.FREAK}, {"logjam", v.Logjam}, {"sweet32", v.Sweet32},
		{"rc4", v.RC4}, {"null", v.NullCipher}, {"anon", v.AnonymousCipher}, {"crime", v.CRIME}, {"beast", v.BEAST},
		{"heartbleed", v.Heartbleed.Finding}, {"robot", v.ROBOT.Finding}, {"renegotiation", v.Renegotiation.Finding}} {
		if f.f.Found() {
			vulns = append(vulns, f.name)
		}
	}
	chain := "incomplete"
	if r.Certificate.Chain.Complete {
		chain = "complete"
	}
	if e := r.Certificate.AuthorizationError; e != nil {
		chain += " " + *e
	}
	a := r.Advisory
	checks := fmt.Sprintf("heartbeat=%s rsaKeyTransport=%s clientRenegotiation=%s fallbackScsv=%s sessionId=%s ticket=%s",
		orNull(v.Heartbleed.Heartbeat), orNull(v.ROBOT.RSAKeyTransport), orNull(v.Renegotiation.ClientInitiated),
		orNull(v.Poodle.FallbackSCSV), orNull(a.SessionIDResumption.Supported), orNull(a.SessionTicketResumption.Supported))
	if r.Partial {
		checks += fmt.Sprintf(" PARTIAL %+v", r.Unfinished)
	}
	return fmt.Sprintf("%s | kx %s | vuln %s | checks %s | chain %s", strings.Join(parts, " "), strings.Join(kx, ", "),
		strings.Join(vulns, " "), checks, chain)
}

// orNull is "true", "false", or "null" for a check not run.
func orNull(b *bool) string {
	if b == nil {
		return "null"
	}
	return strconv.FormatBool(*b)
}

func main() {
	allow := flag.String("allow", "127.0.0.0/8", "network exempt from the SSRF deny table")
	protocols := flag.Bool("protocols", false, "print only the supported versions, as sslscan names them")
	rootsFile := flag.String("roots", "", "PEM file of trust anchors instead of the system's")
	verdicts := flag.Bool("verdicts", false, "print one line of verdicts: protocols, suite counts, key exchange, findings, chain")
	grade := flag.Bool("grade", false, "print the grade with its reasons, then one line per simulated client")
	target := benchenv.Args(1, "tlsscan [-allow CIDR] https://host:port")[0]
	prefix, err := netip.ParsePrefix(*allow)
	if err != nil {
		log.Fatal(err)
	}
	cfg := sitediag.Config{AllowNetworks: []netip.Prefix{prefix}}
	if *rootsFile != "" {
		pem, err := os.ReadFile(*rootsFile)
		if err != nil {
			log.Fatal(err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			log.Fatalf("%s: no certificate", *rootsFile)
		}
	}
	c, err := sitediag.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.TLSScan(context.Background(), target, sitediag.TLSScanOptions{})
	if err != nil {
		log.Fatal(err)
	}
	if *grade {
		fmt.Printf("grade %s (%s)\n", res.Grade, strings.Join(res.GradeReasons, "; "))
		for _, c := range res.ClientSimulation {
			if c.Protocol == nil {
				fmt.Printf("  sim %-26s fails: %s\n", c.Client, c.Error)
				continue
			}
			group := ""
			if c.Group != nil {
				group = " " + *c.Group
			}
			fmt.Printf("  sim %-26s %s %s%s\n", c.Client, *c.Protocol, *c.Suite, group)
		}
		return
	}
	if *verdicts {
		fmt.Println(verdictLine(&res.Result))
		return
	}
	if *protocols {
		p := res.Protocols
		for _, v := range []struct {
			on   bool
			name string
		}{{p.SSL2, "SSLv2"}, {p.SSL3, "SSLv3"}, {p.TLS10, "TLSv1.0"}, {p.TLS11, "TLSv1.1"}, {p.TLS12, "TLSv1.2"}, {p.TLS13, "TLSv1.3"}} {
			if v.on {
				fmt.Println(v.name)
			}
		}
		return
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.Encode(res)
}
