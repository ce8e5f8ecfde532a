package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/sitediag/sitediag"
)

// command is one subcommand: an operation of the library, its options
// as flags, and how its result reads in a terminal.
type command struct {
	// name is the subcommand, path the API's path of its operation.
	name, path, target, help string
	// options returns a fresh options value, for its flags, and the run
	// of the operation with it.
	options func() (opts any, run runFunc)
}

// runFunc runs an operation on one target.
type runFunc func(ctx context.Context, c *sitediag.Client, target string, out *output) (*outcome, error)

// outcome is what a run found: the result (the JSON's data), the
// settings it ran with (meta), its table and its findings.
type outcome struct {
	data     any
	meta     any
	table    func(w io.Writer)
	findings []string
	// files are the files written (screenshots, PDFs, reports).
	files []string
}

// op makes a command's options of an operation's: the flags fill an O,
// and show reads the result R.
func op[O, R any](call func(*sitediag.Client, context.Context, string, O) (*R, error),
	show func(r *R, a *artifacts) *outcome) func() (any, runFunc) {
	return func() (any, runFunc) {
		opts := new(O)
		return opts, func(ctx context.Context, c *sitediag.Client, target string, out *output) (*outcome, error) {
			r, err := call(c, ctx, target, *opts)
			if err != nil {
				return nil, err
			}
			a := &artifacts{dir: out.dir, target: target}
			o := show(r, a)
			if a.err != nil {
				return nil, a.err
			}
			if o.data == nil {
				o.data = r
			}
			o.meta, o.files = settingsOf(r), a.files
			return o, nil
		}
	}
}

// commands are the subcommands, by name.
func commands() []*command {
	return []*command{
		{"up", "/up", "url", "is the site up (the status of the final response)", op((*sitediag.Client).Up, showUp)},
		{"redirectcheck", "/redirectcheck", "url", "every response of the redirect chain", op((*sitediag.Client).RedirectCheck, showRedirects)},
		{"ttfb", "/ttfb", "url", "time to first byte", op((*sitediag.Client).TTFB, func(r *sitediag.TTFBResult, _ *artifacts) *outcome {
			return &outcome{table: func(w io.Writer) { fmt.Fprintf(w, "ttfb\t%.1f ms\nurl\t%s\n", r.TTFB, r.RedirectedURL) }}
		})},
		{"loadtime", "/loadtime", "url", "timings of a page load (dns, connect, tls, wait, download)", op((*sitediag.Client).LoadTime, showLoadTime)},
		{"httpheader", "/httpheader", "url", "the response headers", op((*sitediag.Client).HTTPHeader, func(r *sitediag.HTTPHeaderResult, _ *artifacts) *outcome {
			return &outcome{table: func(w io.Writer) {
				fmt.Fprintf(w, "status\t%d\n", r.StatusCode)
				for _, h := range r.Headers {
					fmt.Fprintf(w, "%s\t%s\n", h.Name, h.Value)
				}
			}}
		})},
		{"httpprotocol", "/httpprotocol", "url", "which HTTP versions the site speaks", op((*sitediag.Client).HTTPProtocol, showProtocols)},
		{"brokenlink", "/brokenlink", "url", "the status of every link on the page", op((*sitediag.Client).BrokenLink, showBrokenLinks)},
		{"dns", "/dnsrecord", "host", "DNS records, a row each (--types A,MX; all nine by default)", op((*sitediag.Client).DNSRecords, showRecords)},
		{"dnssec", "/dnssec", "host", "whether the zone is signed and validates", op((*sitediag.Client).DNSSEC, showDNSSEC)},
		{"openport", "/openport", "host", "open TCP ports", op((*sitediag.Client).OpenPort, showPorts)},
		{"ping", "/ping", "host", "ICMP echo round trips", op((*sitediag.Client).Ping, showPing)},
		{"mtr", "/mtr", "host", "the network path, hop by hop", op((*sitediag.Client).MTR, showMTR)},
		{"tlsscan", "/tlsscan", "host[:port]", "TLS versions, cipher suites, vulnerabilities and certificate", op((*sitediag.Client).TLSScan, showTLS)},
		{"screenshot", "/screenshot", "url", "a screenshot of the rendered page, saved as <host>.<type>", op((*sitediag.Client).Screenshot, showScreenshot)},
		{"url2pdf", "/url2pdf", "url", "the rendered page as PDF, saved as <host>.pdf", op((*sitediag.Client).URL2PDF, showPDF)},
		{"mixedcontent", "/mixedcontent", "https-url", "plain-HTTP resources of an HTTPS page", op((*sitediag.Client).MixedContent, showMixedContent)},
		{"lighthouse", "/lighthouse", "url", "a Lighthouse audit; the report saved as <host>.html", op((*sitediag.Client).Lighthouse, showLighthouse)},
		{"metascrape", "/metascraping", "url", "the page's metadata", op((*sitediag.Client).MetaScrape, showMetadata)},
		{"webscrape", "/web-scraping", "url", "the page's content (html, markdown, text, …), saved as <host>.<format>", op((*sitediag.Client).WebScrape, showContent)},
		{"brand", "/brand", "domain", "the brand record: colours, logos, fonts", op((*sitediag.Client).Brand, func(r *sitediag.BrandResult, _ *artifacts) *outcome {
			return &outcome{data: r.Record, table: fields(r.Record)}
		})},
	}
}

func showUp(r *sitediag.UpResult, _ *artifacts) *outcome {
	out := &outcome{table: func(w io.Writer) {
		fmt.Fprintf(w, "host\t%s\nreachable\t%s\nstatus\t%d %s\n", r.Host, yesNo(r.Reachable), r.StatusCode, r.ReasonPhrase)
	}}
	switch {
	case !r.Reachable:
		out.findings = append(out.findings, "the site is down: "+r.ReasonPhrase)
	case r.StatusCode >= 400:
		out.findings = append(out.findings, fmt.Sprintf("the site answers HTTP %d %s", r.StatusCode, r.ReasonPhrase))
	}
	return out
}

func showRedirects(r *sitediag.RedirectCheckResult, _ *artifacts) *outcome {
	return &outcome{table: func(w io.Writer) {
		fmt.Fprintln(w, "#\tSTATUS\tURL")
		for i, h := range r.Hops {
			fmt.Fprintf(w, "%d\t%d\t%s\n", i+1, h.Status, h.URL)
		}
	}}
}

func showLoadTime(r *sitediag.LoadTimeResult, _ *artifacts) *outcome {
	return &outcome{table: func(w io.Writer) {
		t := r.Timings
		fmt.Fprintln(w, "PHASE\tTIME")
		for _, p := range []struct {
			name string
			ms   float64
		}{{"redirects", t.RedirectDuration}, {"dns", t.DNS}, {"connect", t.Connect}, {"tls", t.TLS}, {"send", t.Send},
			{"wait", t.Wait}, {"download", t.Download}, {"total", t.Total}} {
			fmt.Fprintf(w, "%s\t%.1f ms\n", p.name, p.ms)
		}
		fmt.Fprintf(w, "status\t%d %s\n", r.StatusCode, r.ReasonPhrase)
	}}
}

func showProtocols(r *sitediag.HTTPProtocolResult, _ *artifacts) *outcome {
	p := r.ProtocolSupport
	return &outcome{data: p, table: func(w io.Writer) {
		fmt.Fprintln(w, "PROTOCOL\tSUPPORTED")
		fmt.Fprintf(w, "HTTP/1.0\t%s\nHTTP/1.1\t%s\nHTTP/2\t%s\nHTTP/3\t%s %s\n", yesNo(p.HTTP10), yesNo(p.HTTP11), yesNo(p.HTTP2),
			yesNo(p.HTTP3), strings.Join(p.HTTP3SupportedVersion, " "))
	}}
}

func showBrokenLinks(r *sitediag.BrokenLinkResult, _ *artifacts) *outcome {
	out := &outcome{table: func(w io.Writer) {
		fmt.Fprintln(w, "STATUS\tLINK")
		for _, l := range r.Links {
			fmt.Fprintf(w, "%d\t%s\n", l.Status, l.Link)
		}
		s := r.Summary
		fmt.Fprintf(w, "links: %d total, %d successful, %d redirects, %d broken, %d server errors\n",
			s.Total, s.Successful, s.Redirects, s.Broken, s.ServerError)
	}}
	if n := r.Summary.Broken + r.Summary.ServerError; n > 0 {
		out.findings = append(out.findings, fmt.Sprintf("%d broken link(s)", n))
	}
	return out
}

// showRecords prints one row per record: its type and its value in
// zone-file order (MX: priority exchange; SRV: priority weight port
// target; CAA: flags tag value; SOA: mname rname serial refresh retry
// expire minimum).
func showRecords(r *sitediag.DNSRecordsResult, _ *artifacts) *outcome {
	return &outcome{table: func(w io.Writer) {
		fmt.Fprintf(w, "rcode\t%s\n", r.Rcode)
		fmt.Fprintln(w, "TYPE\tVALUE")
		for _, t := range r.Types {
			for _, v := range recordValues(r, t) {
				fmt.Fprintf(w, "%s\t%s\n", t, v)
			}
		}
	}}
}

func recordValues(r *sitediag.DNSRecordsResult, t string) []string {
	var out []string
	switch t {
	case "A":
		return r.A
	case "AAAA":
		return r.AAAA
	case "CNAME":
		return r.CNAME
	case "NS":
		return r.NS
	case "TXT":
		for _, s := range r.TXT {
			out = append(out, fmt.Sprintf("%q", s))
		}
	case "MX":
		for _, m := range r.MX {
			out = append(out, fmt.Sprintf("%d %s", m.Priority, m.Exchange))
		}
	case "SRV":
		for _, s := range r.SRV {
			out = append(out, fmt.Sprintf("%d %d %d %s", s.Priority, s.Weight, s.Port, s.Name))
		}
	case "CAA":
		for _, c := range r.CAA {
			out = append(out, fmt.Sprintf("%d %s %q", c.Critical, c.Tag, c.Value))
		}
	case "SOA":
		if s := r.SOA; s != nil {
			out = append(out, fmt.Sprintf("%s %s %d %ds %ds %ds %ds", s.NSName, s.Hostmaster, s.Serial, s.Refresh, s.Retry, s.Expire, s.MinTTL))
		}
	}
	return out
}

func showDNSSEC(r *sitediag.DNSSECResult, _ *artifacts) *outcome {
	out := &outcome{table: func(w io.Writer) {
		fmt.Fprintf(w, "zone\t%s\nenabled\t%s\nvalidation\t%s\nreason\t%s\n", r.Zone, yesNo(r.IsEnabled), r.Validation.Status, r.Validation.Reason)
	}}
	if r.Validation.Status == "bogus" {
		out.findings = append(out.findings, "DNSSEC is bogus: "+r.Validation.Reason)
	}
	return out
}

func showPorts(r *sitediag.OpenPortResult, _ *artifacts) *outcome {
	return &outcome{table: func(w io.Writer) {
		fmt.Fprintf(w, "ip\t%s\n", r.IP)
		fmt.Fprintln(w, "PORT\tSTATE\tSERVICE")
		for _, p := range r.OpenPorts {
			service := ""
			for _, s := range r.Services {
				if s.Port == p {
					service = s.Service.Name
				}
			}
			fmt.Fprintf(w, "%d/tcp\topen\t%s\n", p, service)
		}
	}}
}

func showPing(r *sitediag.PingResult, _ *artifacts) *outcome {
	out := &outcome{table: func(w io.Writer) {
		fmt.Fprintf(w, "ip\t%s\nmethod\t%s\nrequests\t%d\nloss\t%.0f %%\n", r.IP, r.Method, r.Requests, r.Loss)
		fmt.Fprintf(w, "rtt min/avg/max/stddev\t%.2f / %.2f / %.2f / %.2f ms\n", r.Min, r.Avg, r.Max, r.StdDev)
		fmt.Fprintln(w, "SEQ\tRTT\tTTL")
		for _, p := range r.Replies {
			fmt.Fprintf(w, "%d\t%.2f ms\t%d\n", p.Seq, p.RTT, p.TTL)
		}
	}}
	if r.Loss > 0 {
		out.findings = append(out.findings, fmt.Sprintf("%.0f %% packet loss", r.Loss))
	}
	return out
}

func showMTR(r *sitediag.MTRResult, _ *artifacts) *outcome {
	return &outcome{table: func(w io.Writer) {
		fmt.Fprintln(w, "HOP\tHOST\tASN\tLOSS\tSENT\tLAST\tAVG\tBEST\tWORST\tSTDEV")
		for _, h := range r.Hops {
			fmt.Fprintf(w, "%d\t%s\t%s\t%.1f %%\t%d\t%.1f ms\t%.1f ms\t%.1f ms\t%.1f ms\t%.1f ms\n",
				h.Hop, h.Host, h.ASN, h.Loss, h.Sent, h.Last, h.Avg, h.Best, h.Worst, h.StdDev)
		}
	}}
}

func showScreenshot(r *sitediag.ScreenshotResult, a *artifacts) *outcome {
	path := a.save(string(r.Settings.Type), bytes.NewReader(r.Image))
	return &outcome{table: func(w io.Writer) {
		fmt.Fprintf(w, "file\t%s (%d bytes)\nurl\t%s\n", path, len(r.Image), r.RedirectedURL)
	}}
}

func showPDF(r *sitediag.URL2PDFResult, a *artifacts) *outcome {
	defer r.Body.Close()
	path := a.save("pdf", r.Body)
	return &outcome{table: func(w io.Writer) { fmt.Fprintf(w, "file\t%s\nurl\t%s\n", path, r.RedirectedURL) }}
}

func showMixedContent(r *sitediag.MixedContentResult, _ *artifacts) *outcome {
	out := &outcome{table: func(w io.Writer) {
		fmt.Fprintln(w, "TYPE\tACTIVE\tBLOCKED\tURL")
		for _, i := range r.Items {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", i.Type, yesNo(i.Active), yesNo(i.Blocked), i.URL)
		}
	}}
	if len(r.Items) > 0 {
		out.findings = append(out.findings, fmt.Sprintf("%d mixed-content resource(s)", len(r.Items)))
	}
	return out
}

func showLighthouse(r *sitediag.LighthouseResult, a *artifacts) *outcome {
	path := a.save("html", bytes.NewReader(r.HTMLReport))
	s := r.Scores
	return &outcome{table: func(w io.Writer) {
		fmt.Fprintln(w, "CATEGORY\tSCORE")
		for _, c := range []struct {
			name  string
			score *int
		}{{"performance", s.Performance}, {"accessibility", s.Accessibility}, {"best practices", s.BestPractices}, {"seo", s.SEO}} {
			if c.score != nil {
				fmt.Fprintf(w, "%s\t%d / 100\n", c.name, *c.score)
			}
		}
		fmt.Fprintf(w, "report\t%s\n", path)
	}}
}

func showMetadata(r *sitediag.MetaScrapeResult, _ *artifacts) *outcome {
	if r.Settings.Format == "markdown" {
		return &outcome{data: r.Markdown, table: func(w io.Writer) { io.WriteString(w, r.Markdown) }}
	}
	return &outcome{data: r.Metadata, table: fields(r.Metadata)}
}

// showContent prints the page in each format asked for, or saves each
// to a file with fileOutput.
func showContent(r *sitediag.WebScrapeResult, a *artifacts) *outcome {
	formats := r.Settings.Format
	var paths []string
	if r.Settings.FileOutput.Bool() {
		for _, f := range formats {
			paths = append(paths, a.save(f.Ext(), strings.NewReader(contentText(r.Content[f]))))
		}
	}
	return &outcome{data: r.Content, table: func(w io.Writer) {
		for i, f := range formats {
			if paths != nil {
				fmt.Fprintf(w, "%s\t%s\n", f, paths[i])
				continue
			}
			if len(formats) > 1 {
				fmt.Fprintf(w, "== %s ==\n", f)
			}
			fmt.Fprintln(w, contentText(r.Content[f]))
		}
	}}
}

// contentText is a format's content as text: JSON for the json format.
func contentText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// protocolOrder are the versions /tlsscan reports, oldest first.
var protocolOrder = []struct{ key, name string }{
	{"ssl2", "SSL 2.0"}, {"ssl3", "SSL 3.0"}, {"tls10", "TLS 1.0"}, {"tls11", "TLS 1.1"}, {"tls12", "TLS 1.2"}, {"tls13", "TLS 1.3"},
}

// showTLS prints the protocol table, the vulnerabilities and the
// certificate; findings are an expired, untrusted or soon-expiring
// certificate, a legacy protocol and a vulnerability.
func showTLS(r *sitediag.TLSScanResult, _ *artifacts) *outcome {
	// Read the API's JSON shape so the table shows what --json does.
	var d struct {
		Protocols       map[string]bool                      `json:"protocols"`
		CipherSuites    map[string]struct{ Suites []string } `json:"cipherSuites"`
		Vulnerabilities map[string]struct{ Vulnerable bool } `json:"vulnerabilities"`
		Certificate     struct {
			CommonName, SubjectAltName, Expiry, AuthorizationError string
			DaysRemaining                                          int
			IsExpired, Trusted                                     bool
		} `json:"certificate"`
	}
	b, _ := json.Marshal(r)
	json.Unmarshal(b, &d)
	out := &outcome{}
	for _, p := range protocolOrder[:4] {
		if d.Protocols[p.key] {
			out.findings = append(out.findings, p.name+" is enabled")
		}
	}
	var vulns []string
	for name, v := range d.Vulnerabilities {
		if v.Vulnerable {
			vulns = append(vulns, name)
		}
	}
	sort.Strings(vulns)
	for _, v := range vulns {
		out.findings = append(out.findings, "vulnerable to "+v)
	}
	cert := d.Certificate
	switch {
	case cert.IsExpired:
		out.findings = append(out.findings, "the certificate expired on "+cert.Expiry)
	case cert.Expiry != "" && cert.DaysRemaining < 14:
		out.findings = append(out.findings, fmt.Sprintf("the certificate expires in %d days", cert.DaysRemaining))
	}
	if cert.Expiry != "" && !cert.Trusted {
		out.findings = append(out.findings, "the certificate is not trusted: "+cert.AuthorizationError)
	}
	out.table = func(w io.Writer) {
		fmt.Fprintln(w, "PROTOCOL\tSUPPORTED\tSUITES")
		for _, p := range protocolOrder {
			fmt.Fprintf(w, "%s\t%s\t%d\n", p.name, yesNo(d.Protocols[p.key]), len(d.CipherSuites[p.key].Suites))
		}
		fmt.Fprintf(w, "certificate\t%s\n", strings.TrimSpace(cert.CommonName+" "+cert.SubjectAltName))
		fmt.Fprintf(w, "expires\t%s (%d days left)\n", cert.Expiry, cert.DaysRemaining)
		fmt.Fprintf(w, "trusted\t%s %s\n", yesNo(cert.Trusted), cert.AuthorizationError)
		fmt.Fprintf(w, "grade\t%s %s\n", r.Grade, strings.Join(r.GradeReasons, "; "))
		for _, c := range r.ClientSimulation {
			if c.Protocol == nil {
				fmt.Fprintf(w, "client %s\tfails: %s\n", c.Client, c.Error)
				continue
			}
			fmt.Fprintf(w, "client %s\t%s %s %s\n", c.Client, *c.Protocol, *c.Suite, derefOr(c.Group, ""))
		}
		if len(vulns) == 0 {
			fmt.Fprintln(w, "vulnerabilities\tnone found")
		}
		if r.Partial {
			fmt.Fprintf(w, "partial\tout of time; not finished: %v %v %v\n", r.Unfinished.Protocols, r.Unfinished.CipherSuites, r.Unfinished.Checks)
		}
	}
	return out
}

// fields prints the top-level members of v's JSON, a row each; a list of
// strings is a row per item, another nested value compact JSON.
func fields(v any) func(w io.Writer) {
	return func(w io.Writer) {
		b, _ := json.Marshal(v)
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			fmt.Fprintln(w, string(b))
			return
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			var s string
			var list []string
			switch {
			case json.Unmarshal(m[k], &s) == nil:
				fmt.Fprintf(w, "%s\t%s\n", k, s)
			case json.Unmarshal(m[k], &list) == nil:
				for _, item := range list {
					fmt.Fprintf(w, "%s\t%s\n", k, item)
				}
			default:
				var buf bytes.Buffer
				json.Compact(&buf, m[k])
				fmt.Fprintf(w, "%s\t%s\n", k, buf.String())
			}
		}
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// derefOr returns *s, or def when s is nil.
func derefOr(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}
