// Command sitediag runs one diagnosis of a site from the terminal,
// calling the sitediag library directly (no server):
//
//	sitediag up example.com
//	sitediag tlsscan example.com
//	sitediag dns example.com MX TXT
//	sitediag screenshot https://example.com -o shot.png
//	sitediag brokenlink https://example.com --json
//
// Run `sitediag help` for every subcommand. Flags may come before or
// after the arguments. Each prints a table by default and the result as
// JSON with --json. Long jobs show a progress line on stderr when it is
// a terminal.
//
// Exit codes:
//
//	0  done, nothing wrong found
//	1  done, and the result is a finding: the site is down, the
//	   certificate is expired, untrusted or expires within 14 days, a
//	   legacy protocol or a vulnerability, broken links, mixed content,
//	   DNSSEC bogus, packets lost
//	2  the diagnosis could not be made (its error is printed), or the
//	   command line is wrong
//
// Configuration flags, on every subcommand, default to the server's
// environment variables: --dns-servers (SITEDIAG_DNS_SERVERS),
// --allow-networks (SITEDIAG_ALLOW_NETWORKS), --chrome-path
// (SITEDIAG_CHROME_PATH), --timeout.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sitediag/sitediag"
)

// Exit codes.
const (
	exitOK      = 0
	exitFinding = 1
	exitError   = 2
)

// outcome is what a subcommand found: the value --json prints, the
// table printed otherwise, and the findings (none means exit 0).
type outcome struct {
	value    any
	table    func(w io.Writer)
	findings []string
}

// command is one subcommand.
type command struct {
	name, args, help string
	// minArgs and maxArgs bound the positional arguments (-1: no bound).
	minArgs, maxArgs int
	// flags registers the subcommand's own flags and returns its run.
	flags func(fs *flag.FlagSet) func(ctx context.Context, c *sitediag.Client, args []string) (*outcome, error)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(argv []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(argv) == 0 || argv[0] == "help" || argv[0] == "-h" || argv[0] == "--help" {
		usage(stdout, cmds)
		if len(argv) == 0 {
			return exitError
		}
		return exitOK
	}
	cmd, ok := cmds[argv[0]]
	if !ok {
		fmt.Fprintf(stderr, "sitediag: unknown command %q; see sitediag help\n", argv[0])
		return exitError
	}
	fs := flag.NewFlagSet("sitediag "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	cfg.register(fs)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	runCmd := cmd.flags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: sitediag %s [flags] %s\n\n%s\n\nflags:\n", cmd.name, cmd.args, cmd.help)
		fs.PrintDefaults()
	}
	args, err := parseInterleaved(fs, argv[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitError
	}
	if len(args) < cmd.minArgs || (cmd.maxArgs >= 0 && len(args) > cmd.maxArgs) {
		fs.Usage()
		return exitError
	}
	clientCfg, err := cfg.client()
	if err != nil {
		fmt.Fprintf(stderr, "sitediag: %v\n", err)
		return exitError
	}
	client, err := sitediag.New(clientCfg)
	if err != nil {
		fmt.Fprintf(stderr, "sitediag: %v\n", err)
		return exitError
	}
	defer client.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	done := progress(stderr, cmd.name+" "+strings.Join(args, " "))
	out, err := runCmd(ctx, client, args)
	done()
	if err != nil {
		fmt.Fprintf(stderr, "sitediag %s: %v\n", cmd.name, err)
		if code := sitediag.CodeOf(err); code != "" {
			fmt.Fprintf(stderr, "error code: %s\n", code)
		}
		return exitError
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out.value); err != nil {
			fmt.Fprintf(stderr, "sitediag: %v\n", err)
			return exitError
		}
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		out.table(tw)
		tw.Flush()
		for _, f := range out.findings {
			fmt.Fprintf(stdout, "FINDING: %s\n", f)
		}
	}
	if len(out.findings) > 0 {
		return exitFinding
	}
	return exitOK
}

// parseInterleaved parses flags wherever they are among the arguments
// and returns the arguments.
func parseInterleaved(fs *flag.FlagSet, argv []string) ([]string, error) {
	var args []string
	for {
		if err := fs.Parse(argv); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return args, nil
		}
		args = append(args, fs.Arg(0))
		argv = fs.Args()[1:]
	}
}

func usage(w io.Writer, cmds map[string]*command) {
	fmt.Fprintln(w, "usage: sitediag <command> [flags] <target> [args]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, n := range names {
		fmt.Fprintf(tw, "  %s %s\t%s\n", n, cmds[n].args, cmds[n].help)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nexit codes: 0 nothing wrong found, 1 a finding (site down, certificate expiring,")
	fmt.Fprintln(w, "broken links, …), 2 an error or a wrong command line. `sitediag <command> -h` lists its flags.")
}

// config holds the flags every subcommand has.
type config struct {
	dnsServers, allowNetworks, chromePath string
	timeout                               time.Duration
}

func (c *config) register(fs *flag.FlagSet) {
	fs.StringVar(&c.dnsServers, "dns-servers", os.Getenv("SITEDIAG_DNS_SERVERS"), "DNS servers, host:port, comma-separated (default $SITEDIAG_DNS_SERVERS, else the system's)")
	fs.StringVar(&c.allowNetworks, "allow-networks", os.Getenv("SITEDIAG_ALLOW_NETWORKS"), "CIDRs exempt from the SSRF deny table, such as 127.0.0.1/32 (default $SITEDIAG_ALLOW_NETWORKS)")
	fs.StringVar(&c.chromePath, "chrome-path", os.Getenv("SITEDIAG_CHROME_PATH"), "Chromium binary for the browser commands (default $SITEDIAG_CHROME_PATH, else on PATH)")
	fs.DurationVar(&c.timeout, "timeout", 0, "bound on the operation (default 60s; 0 keeps the default)")
}

func (c *config) client() (sitediag.Config, error) {
	cfg := sitediag.Config{DNSServers: splitList(c.dnsServers), ChromePath: c.chromePath, Timeout: c.timeout}
	for _, cidr := range splitList(c.allowNetworks) {
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			return cfg, fmt.Errorf("--allow-networks: %q is not a CIDR", cidr)
		}
		cfg.AllowNetworks = append(cfg.AllowNetworks, p)
	}
	return cfg, nil
}

func splitList(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// progress shows "sitediag: what… 3s" on stderr, updated each second,
// when stderr is a terminal; the returned func clears it.
func progress(stderr io.Writer, what string) func() {
	f, ok := stderr.(*os.File)
	if !ok {
		return func() {}
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return func() {}
	}
	start := time.Now()
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			fmt.Fprintf(f, "\rsitediag: %s… %ds ", what, int(time.Since(start).Seconds()))
			select {
			case <-stop:
				fmt.Fprint(f, "\r\033[K")
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(stop); <-finished }
}

// toggleFlag is a sitediag.Toggle as a boolean flag; unset keeps the
// operation's default.
type toggleFlag struct{ t *sitediag.Toggle }

func (f toggleFlag) String() string {
	if f.t == nil || *f.t == 0 {
		return ""
	}
	return fmt.Sprint(f.t.Or(false))
}

func (f toggleFlag) Set(v string) error {
	switch strings.ToLower(v) {
	case "true", "1", "yes", "on":
		*f.t = sitediag.On
	case "false", "0", "no", "off":
		*f.t = sitediag.Off
	default:
		return fmt.Errorf("%q is not true or false", v)
	}
	return nil
}

func (f toggleFlag) IsBoolFlag() bool { return true }

func toggle(fs *flag.FlagSet, t *sitediag.Toggle, name, usage string) {
	fs.Var(toggleFlag{t}, name, usage+" (default: the operation's; --"+name+"=false to turn off)")
}

func requestFlags(fs *flag.FlagSet, o *sitediag.RequestOptions) {
	toggle(fs, &o.FollowRedirect, "follow-redirect", "follow redirects")
	fs.StringVar(&o.ProxyCountry, "proxy-country", "", "go through the configured proxy of this country")
}

func pageFlags(fs *flag.FlagSet, o *sitediag.PageOptions) {
	fs.StringVar(&o.Device, "device", "", "emulated device: desktop, mobile, tablet (default desktop)")
	fs.StringVar(&o.ProxyCountry, "proxy-country", "", "go through the configured proxy of this country")
	toggle(fs, &o.BlockAds, "block-ads", "block ad and tracker hosts")
	toggle(fs, &o.HideCookie, "hide-cookie", "hide cookie banners")
	toggle(fs, &o.SkipCaptcha, "skip-captcha", "wait for bot challenges to clear")
}

// writeFile writes data to path, or says where it would have gone.
func writeFile(path string, data io.Reader) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
