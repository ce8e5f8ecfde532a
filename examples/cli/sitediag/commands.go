package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sitediag/sitediag"
)

type runFunc = func(ctx context.Context, c *sitediag.Client, args []string) (*outcome, error)

// op adapts an operation that takes one target and an options value.
func op[O, R any](fill func(fs *flag.FlagSet, o *O), call func(*sitediag.Client, context.Context, string, O) (*R, error),
	show func(r *R, args []string) *outcome) func(fs *flag.FlagSet) runFunc {
	return func(fs *flag.FlagSet) runFunc {
		var o O
		if fill != nil {
			fill(fs, &o)
		}
		return func(ctx context.Context, c *sitediag.Client, args []string) (*outcome, error) {
			r, err := call(c, ctx, withScheme(args[0]), o)
			if err != nil {
				return nil, err
			}
			return show(r, args), nil
		}
	}
}

// withScheme makes a bare host (example.com, example.com:8443/path) an
// https URL; a URL is kept as it is.
func withScheme(target string) string {
	if strings.Contains(target, "://") {
		return target
	}
	return "https://" + target
}

// fields prints the top-level members of v's JSON, nested values as
// compact JSON: the table of results without a table of their own.
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
		sort.Strings(keys)
		for _, k := range keys {
			var s string
			if json.Unmarshal(m[k], &s) != nil {
				var buf bytes.Buffer
				json.Compact(&buf, m[k])
				s = buf.String()
			}
			fmt.Fprintf(w, "%s\t%s\n", k, s)
		}
	}
}

func commands() map[string]*command {
	list := []*command{
		{name: "up", args: "<url>", help: "is the site up (status of the final response)", minArgs: 1, maxArgs: 1,
			flags: op(func(fs *flag.FlagSet, o *sitediag.UpOptions) { requestFlags(fs, &o.RequestOptions) }, (*sitediag.Client).Up,
				func(r *sitediag.UpResult, _ []string) *outcome {
					out := &outcome{value: r, table: func(w io.Writer) {
						fmt.Fprintf(w, "host\t%s\nreachable\t%s\nstatus\t%d %s\n", r.Host, yesNo(r.Reachable), r.StatusCode, r.ReasonPhrase)
					}}
					if !r.Reachable {
						out.findings = append(out.findings, "the site is down")
					}
					return out
				})},
		{name: "redirectcheck", args: "<url>", help: "every response of the redirect chain", minArgs: 1, maxArgs: 1,
			flags: op(func(fs *flag.FlagSet, o *sitediag.RedirectCheckOptions) {
				fs.StringVar(&o.ProxyCountry, "proxy-country", "", "go through the configured proxy of this country")
			}, (*sitediag.Client).RedirectCheck, func(r *sitediag.RedirectCheckResult, _ []string) *outcome {
				return &outcome{value: r.Hops, table: func(w io.Writer) {
					fmt.Fprintln(w, "#\tSTATUS\tURL")
					for i, h := range r.Hops {
						fmt.Fprintf(w, "%d\t%d\t%s\n", i+1, h.Status, h.URL)
					}
				}}
			})},
		{name: "ttfb", args: "<url>", help: "time to first byte", minArgs: 1, maxArgs: 1,
			flags: op(func(fs *flag.FlagSet, o *sitediag.TTFBOptions) { requestFlags(fs, &o.RequestOptions) }, (*sitediag.Client).TTFB,
				func(r *sitediag.TTFBResult, _ []string) *outcome {
					return &outcome{value: r, table: func(w io.Writer) { fmt.Fprintf(w, "ttfb\t%.1f ms\nurl\t%s\n", r.TTFB, r.RedirectedURL) }}
				})},
		{name: "loadtime", args: "<url>", help: "timings of a page load (dns, connect, tls, wait, download)", minArgs: 1, maxArgs: 1,
			flags: op(func(fs *flag.FlagSet, o *sitediag.LoadTimeOptions) { requestFlags(fs, &o.RequestOptions) }, (*sitediag.Client).LoadTime,
				func(r *sitediag.LoadTimeResult, _ []string) *outcome {
					return &outcome{value: r, table: func(w io.Writer) {
						t := r.Timings
						fmt.Fprintln(w, "PHASE\tMS")
						for _, p := range []struct {
							n string
							v float64
						}{{"redirects", t.RedirectDuration}, {"dns", t.DNS}, {"connect", t.Connect}, {"tls", t.TLS}, {"send", t.Send}, {"wait", t.Wait}, {"download", t.Download}, {"total", t.Total}} {
							fmt.Fprintf(w, "%s\t%.1f\n", p.n, p.v)
						}
						fmt.Fprintf(w, "status\t%d %s\n", r.StatusCode, r.ReasonPhrase)
					}}
				})},
		{name: "httpheader", args: "<url>", help: "the response headers", minArgs: 1, maxArgs: 1,
			flags: op(func(fs *flag.FlagSet, o *sitediag.HTTPHeaderOptions) { requestFlags(fs, &o.RequestOptions) }, (*sitediag.Client).HTTPHeader,
				func(r *sitediag.HTTPHeaderResult, _ []string) *outcome {
					return &outcome{value: r, table: func(w io.Writer) {
						fmt.Fprintf(w, "status\t%d\n", r.StatusCode)
						for _, h := range r.Headers {
							fmt.Fprintf(w, "%s\t%s\n", h.Name, h.Value)
						}
					}}
				})},
		{name: "httpprotocol", args: "<url>", help: "which HTTP versions the site speaks", minArgs: 1, maxArgs: 1,
			flags: op(func(fs *flag.FlagSet, o *sitediag.HTTPProtocolOptions) { requestFlags(fs, &o.RequestOptions) }, (*sitediag.Client).HTTPProtocol,
				func(r *sitediag.HTTPProtocolResult, _ []string) *outcome {
					return &outcome{value: r.ProtocolSupport, table: fields(r.ProtocolSupport)}
				})},
		{name: "brokenlink", args: "<url>", help: "the status of every link on the page", minArgs: 1, maxArgs: 1,
			flags: op(func(fs *flag.FlagSet, o *sitediag.BrokenLinkOptions) { requestFlags(fs, &o.RequestOptions) }, (*sitediag.Client).BrokenLink,
				func(r *sitediag.BrokenLinkResult, _ []string) *outcome {
					out := &outcome{value: r, table: func(w io.Writer) {
						fmt.Fprintln(w, "STATUS\tLINK")
						for _, l := range r.Links {
							fmt.Fprintf(w, "%d\t%s\n", l.Status, l.Link)
						}
						s := r.Summary
						fmt.Fprintf(w, "total %d, successful %d, redirects %d, broken %d, server errors %d\n", s.Total, s.Successful, s.Redirects, s.Broken, s.ServerError)
					}}
					if n := r.Summary.Broken + r.Summary.ServerError; n > 0 {
						out.findings = append(out.findings, fmt.Sprintf("%d broken link(s)", n))
					}
					return out
				})},
		{name: "dns", args: "<host> [TYPE…]", help: "DNS records (A AAAA CNAME MX CAA NS SOA SRV TXT; all when none given)", minArgs: 1, maxArgs: -1,
			flags: func(fs *flag.FlagSet) runFunc {
				return func(ctx context.Context, c *sitediag.Client, args []string) (*outcome, error) {
					r, err := c.DNSRecords(ctx, args[0], sitediag.DNSRecordsOptions{Types: args[1:]})
					if err != nil {
						return nil, err
					}
					return &outcome{value: r, table: fields(r)}, nil
				}
			}},
		{name: "dnssec", args: "<host>", help: "whether the zone is signed and validates", minArgs: 1, maxArgs: 1,
			flags: op(nil, (*sitediag.Client).DNSSEC, func(r *sitediag.DNSSECResult, _ []string) *outcome {
				out := &outcome{value: r, table: func(w io.Writer) {
					fmt.Fprintf(w, "zone\t%s\nenabled\t%s\nvalidation\t%s\nreason\t%s\n", r.Zone, yesNo(r.IsEnabled), r.Validation.Status, r.Validation.Reason)
				}}
				if r.Validation.Status == "bogus" {
					out.findings = append(out.findings, "DNSSEC is bogus: "+r.Validation.Reason)
				}
				return out
			})},
		{name: "openport", args: "<host>", help: "open TCP ports", minArgs: 1, maxArgs: 1,
			flags: op(func(fs *flag.FlagSet, o *sitediag.OpenPortOptions) {
				fs.IntVar(&o.TopPorts, "top-ports", 0, "scan the N most common ports: 50, 100, 500, 1000, 5000 (default 100)")
				fs.StringVar(&o.PortRanges, "ports", "", "ports to scan, such as 22,80,8000-8100")
				fs.BoolVar(&o.DetectServices, "detect-services", false, "probe what answers on each open port")
			}, (*sitediag.Client).OpenPort, func(r *sitediag.OpenPortResult, _ []string) *outcome {
				return &outcome{value: r, table: func(w io.Writer) {
					fmt.Fprintf(w, "ip\t%s\n", r.IP)
					fmt.Fprintln(w, "PORT\tSTATE")
					for _, p := range r.OpenPorts {
						fmt.Fprintf(w, "%d\topen\n", p)
					}
				}}
			})},
		{name: "ping", args: "<host>", help: "ICMP echo round trips", minArgs: 1, maxArgs: 1,
			flags: op(func(fs *flag.FlagSet, o *sitediag.PingOptions) {
				fs.IntVar(&o.Count, "count", 0, "requests, 1-16 (default 4)")
			}, (*sitediag.Client).Ping, func(r *sitediag.PingResult, _ []string) *outcome {
				out := &outcome{value: r, table: fields(r)}
				if r.Loss > 0 {
					out.findings = append(out.findings, fmt.Sprintf("%.0f%% packet loss", r.Loss))
				}
				return out
			})},
		{name: "mtr", args: "<host>", help: "the network path, hop by hop", minArgs: 1, maxArgs: 1,
			flags: op(func(fs *flag.FlagSet, o *sitediag.MTROptions) {
				fs.IntVar(&o.Count, "count", 0, "rounds, 1-20 (default 5)")
				fs.IntVar(&o.MaxHops, "max-hops", 0, "largest TTL, 1-64 (default 30)")
			}, (*sitediag.Client).MTR, func(r *sitediag.MTRResult, _ []string) *outcome {
				return &outcome{value: r, table: func(w io.Writer) {
					for i, h := range r.Hops {
						b, _ := json.Marshal(h)
						fmt.Fprintf(w, "%d\t%s\n", i+1, b)
					}
				}}
			})},
		{name: "tlsscan", args: "<host[:port]>", help: "TLS versions, cipher suites, vulnerabilities and certificate", minArgs: 1, maxArgs: 1,
			flags: op(func(fs *flag.FlagSet, o *sitediag.TLSScanOptions) {
				fs.DurationVar(&o.ProbeTimeout, "probe-timeout", 0, "time each probe may take, up to 30s (default 5s)")
			}, (*sitediag.Client).TLSScan, showTLS)},
		{name: "screenshot", args: "<url>", help: "a screenshot of the rendered page (-o file)", minArgs: 1, maxArgs: 1,
			flags: func(fs *flag.FlagSet) runFunc {
				var o sitediag.ScreenshotOptions
				pageFlags(fs, &o.PageOptions)
				fs.StringVar(&o.Type, "type", "", "png, jpeg or webp (default png)")
				fs.BoolVar(&o.FullPage, "full-page", false, "capture the whole page")
				path := fs.String("o", "screenshot.png", "file to write")
				return func(ctx context.Context, c *sitediag.Client, args []string) (*outcome, error) {
					r, err := c.Screenshot(ctx, withScheme(args[0]), o)
					if err != nil {
						return nil, err
					}
					if _, err := writeFile(*path, bytes.NewReader(r.Image)); err != nil {
						return nil, err
					}
					v := struct {
						File string `json:"file"`
						sitediag.PageVisit
						Settings sitediag.ScreenshotSettings `json:"settings"`
					}{*path, r.PageVisit, r.Settings}
					return &outcome{value: v, table: func(w io.Writer) {
						fmt.Fprintf(w, "file\t%s (%d bytes)\nurl\t%s\n", *path, len(r.Image), r.RedirectedURL)
					}}, nil
				}
			}},
		{name: "url2pdf", args: "<url>", help: "the rendered page as PDF (-o file)", minArgs: 1, maxArgs: 1,
			flags: func(fs *flag.FlagSet) runFunc {
				var o sitediag.URL2PDFOptions
				pageFlags(fs, &o.PageOptions)
				fs.StringVar(&o.Format, "format", "", "paper format, such as A4 or Letter")
				path := fs.String("o", "page.pdf", "file to write")
				return func(ctx context.Context, c *sitediag.Client, args []string) (*outcome, error) {
					r, err := c.URL2PDF(ctx, withScheme(args[0]), o)
					if err != nil {
						return nil, err
					}
					defer r.Body.Close()
					n, err := writeFile(*path, r.Body)
					if err != nil {
						return nil, err
					}
					return &outcome{value: map[string]any{"file": *path, "bytes": n}, table: func(w io.Writer) {
						fmt.Fprintf(w, "file\t%s (%d bytes)\n", *path, n)
					}}, nil
				}
			}},
		{name: "mixedcontent", args: "<https-url>", help: "plain-HTTP resources of an HTTPS page", minArgs: 1, maxArgs: 1,
			flags: op(func(fs *flag.FlagSet, o *sitediag.MixedContentOptions) {
				pageFlags(fs, &o.PageOptions)
				toggle(fs, &o.FollowRedirect, "follow-redirect", "follow redirects")
			}, (*sitediag.Client).MixedContent, func(r *sitediag.MixedContentResult, _ []string) *outcome {
				out := &outcome{value: r, table: func(w io.Writer) {
					fmt.Fprintln(w, "TYPE\tACTIVE\tBLOCKED\tURL")
					for _, i := range r.Items {
						fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", i.Type, yesNo(i.Active), yesNo(i.Blocked), i.URL)
					}
				}}
				if len(r.Items) > 0 {
					out.findings = append(out.findings, fmt.Sprintf("%d mixed-content resource(s)", len(r.Items)))
				}
				return out
			})},
		{name: "lighthouse", args: "<url>", help: "a Lighthouse audit (-o report.html)", minArgs: 1, maxArgs: 1,
			flags: func(fs *flag.FlagSet) runFunc {
				var o sitediag.LighthouseOptions
				fs.StringVar(&o.Device, "device", "", "desktop or mobile (default desktop)")
				toggle(fs, &o.FollowRedirect, "follow-redirect", "follow redirects")
				path := fs.String("o", "", "file for the HTML report (default none)")
				return func(ctx context.Context, c *sitediag.Client, args []string) (*outcome, error) {
					r, err := c.Lighthouse(ctx, withScheme(args[0]), o)
					if err != nil {
						return nil, err
					}
					if *path != "" {
						if _, err := writeFile(*path, bytes.NewReader(r.HTMLReport)); err != nil {
							return nil, err
						}
					}
					return &outcome{value: r.Scores, table: fields(r.Scores)}, nil
				}
			}},
		{name: "metascrape", args: "<url>", help: "the page's metadata", minArgs: 1, maxArgs: 1,
			flags: op(func(fs *flag.FlagSet, o *sitediag.MetaScrapeOptions) {
				pageFlags(fs, &o.PageOptions)
				toggle(fs, &o.RenderJS, "render-js", "render the page in Chromium")
			}, (*sitediag.Client).MetaScrape, func(r *sitediag.MetaScrapeResult, _ []string) *outcome {
				return &outcome{value: r.Metadata, table: fields(r.Metadata)}
			})},
		{name: "webscrape", args: "<url>", help: "the page's content (markdown, text, …)", minArgs: 1, maxArgs: 1,
			flags: op(func(fs *flag.FlagSet, o *sitediag.WebScrapeOptions) {
				pageFlags(fs, &o.PageOptions)
				toggle(fs, &o.RenderJS, "render-js", "render the page in Chromium")
			}, (*sitediag.Client).WebScrape, func(r *sitediag.WebScrapeResult, _ []string) *outcome {
				return &outcome{value: r.Content, table: fields(r.Content)}
			})},
		{name: "brand", args: "<domain>", help: "the brand record: colours, logos, fonts", minArgs: 1, maxArgs: 1,
			flags: op(func(fs *flag.FlagSet, o *sitediag.BrandOptions) {
				fs.BoolVar(&o.Refresh, "refresh", false, "ignore the cache")
			}, (*sitediag.Client).Brand, func(r *sitediag.BrandResult, _ []string) *outcome {
				return &outcome{value: r.Record, table: fields(r.Record)}
			})},
	}
	m := map[string]*command{}
	for _, c := range list {
		m[c.name] = c
	}
	return m
}

var protocolOrder = []struct{ key, name string }{
	{"ssl2", "SSL 2.0"}, {"ssl3", "SSL 3.0"}, {"tls10", "TLS 1.0"}, {"tls11", "TLS 1.1"}, {"tls12", "TLS 1.2"}, {"tls13", "TLS 1.3"},
}

// showTLS prints the protocol table, the vulnerabilities and the
// certificate; findings are an expired, untrusted or soon-expiring
// certificate, a legacy protocol and a vulnerability.
func showTLS(r *sitediag.TLSScanResult, _ []string) *outcome {
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
	out := &outcome{value: r}
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

// derefOr returns *s, or def when s is nil.
func derefOr(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}
