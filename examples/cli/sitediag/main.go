// Command sitediag runs diagnoses from the terminal, calling the
// sitediag library directly (no server), on one target or many:
//
//	sitediag up example.com
//	sitediag tlsscan example.com
//	sitediag dns --types MX,TXT example.com
//	sitediag screenshot --viewport-width 1024 --type jpeg https://example.com
//	sitediag webscrape --format markdown https://example.com
//	sitediag up -l hosts.txt -c 8 --jsonl > up.jsonl
//	printf 'a.example\nb.example\n' | sitediag up -l - --jsonl
//
// Run `sitediag help` for every subcommand and `sitediag <command> -h`
// for its flags: every option of the operation is a flag named as the
// API's member in kebab case (fullPage: --full-page), with the
// API's bounds, enums and defaults. Flags may come before or after the
// targets. A table is printed per target by default; --json prints one
// JSON object per target, --jsonl one per line, -o FILE writes the JSON
// lines to FILE. The object is the same for every command:
//
//	{"target", "operation", "ok", "data", "meta", "findings", "files", "error"}
//
// where data is the result, meta the settings the operation ran with
// (defaults filled in), files the files written (screenshots, PDFs,
// reports, in --output-dir) and error {"code", "message"}.
//
// Exit codes:
//
//	0  done, nothing wrong found
//	1  done, and a result is a finding: the site is down or answers
//	   4xx/5xx, the certificate is expired, untrusted or expires within
//	   14 days, a legacy protocol or a vulnerability, broken links, mixed
//	   content, DNSSEC bogus, packets lost
//	2  a diagnosis could not be made (its error is printed), or the
//	   command line is wrong
//
// Configuration flags, on every subcommand, default to the server's
// environment variables: --dns-servers (SITEDIAG_DNS_SERVERS),
// --allow-networks (SITEDIAG_ALLOW_NETWORKS), --chrome-path
// (SITEDIAG_CHROME_PATH), --proxies (SITEDIAG_PROXIES),
// --lighthouse-dir (SITEDIAG_LIGHTHOUSE_DIR), --deadline.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
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

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(argv) == 0 {
		usage(stderr, cmds)
		return exitError
	}
	switch argv[0] {
	case "help", "-h", "-help", "--help":
		usage(stdout, cmds)
		return exitOK
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, "sitediag", version())
		return exitOK
	}
	var cmd *command
	for _, c := range cmds {
		if c.name == argv[0] {
			cmd = c
		}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "sitediag: unknown command %q; see sitediag help\n", argv[0])
		return exitError
	}
	fs := flag.NewFlagSet("sitediag "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	cfg.register(fs)
	var out output
	out.register(fs)
	opts, runOp := cmd.options()
	optionFlags(fs, opts, memberDocs(cmd.path))
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: sitediag %s [flags] <%s>... \n\n%s.\nTargets are arguments, or one per line in -l FILE (- for stdin).\n\nflags:\n",
			cmd.name, cmd.target, cmd.help)
		fs.PrintDefaults()
	}
	targets, err := parseInterleaved(fs, argv[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitError
	}
	if targets, err = out.addListed(targets, stdin); err != nil {
		fmt.Fprintf(stderr, "sitediag %s: -l: %v\n", cmd.name, err)
		return exitError
	}
	if len(targets) == 0 {
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
	if err := out.open(stdout); err != nil {
		fmt.Fprintf(stderr, "sitediag: %v\n", err)
		return exitError
	}
	defer out.close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	bar := newProgress(stderr, cmd.name, len(targets))
	var mu sync.Mutex
	exit := exitOK
	forEach(targets, out.concurrency, func(target string) {
		res, err := runOp(ctx, client, withScheme(cmd, target), &out)
		mu.Lock()
		defer mu.Unlock()
		bar.clear()
		switch {
		case err != nil:
			exit = exitError
		case len(res.findings) > 0 && exit == exitOK:
			exit = exitFinding
		}
		out.write(stdout, stderr, cmd.name, target, len(targets) > 1, res, err)
		bar.done()
	})
	bar.finish()
	return exit
}

// forEach calls f for each target, n at a time, and returns when all
// have returned.
func forEach(targets []string, n int, f func(target string)) {
	next := make(chan string)
	var wg sync.WaitGroup
	for range max(1, min(n, len(targets))) {
		wg.Go(func() {
			for t := range next {
				f(t)
			}
		})
	}
	for _, t := range targets {
		next <- t
	}
	close(next)
	wg.Wait()
}

// withScheme makes a bare host (example.com, example.com:8443/path) an
// https URL for the commands that take URLs; a URL, and the target of a
// command that takes hosts, is kept as it is.
func withScheme(cmd *command, target string) string {
	if strings.Contains(target, "://") || cmd.target == "host" || cmd.target == "domain" {
		return target
	}
	return "https://" + target
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

func usage(w io.Writer, cmds []*command) {
	fmt.Fprintln(w, "usage: sitediag <command> [flags] <target>...")
	fmt.Fprintln(w, "\ncommands:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range cmds {
		fmt.Fprintf(tw, "  %s <%s>\t%s\n", c.name, c.target, c.help)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nTargets are arguments, or one per line in -l FILE (- for stdin); -c N runs N at once.")
	fmt.Fprintln(w, "Exit codes: 0 nothing wrong found, 1 a finding (site down, certificate expiring,")
	fmt.Fprintln(w, "broken links, …), 2 an error or a wrong command line. `sitediag <command> -h` lists its flags.")
}

// version is the module's version and VCS revision, as built.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}

// config holds the flags that configure the client.
type config struct {
	// settings are the flags of the client's settings, by the variable
	// each stands for (sitediag.ConfigFrom reads them by that name).
	settings map[string]*string
	deadline time.Duration
}

func (c *config) register(fs *flag.FlagSet) {
	c.settings = map[string]*string{}
	// setting declares the flag --name of the variable SITEDIAG_<NAME>
	// (--name upper-cased, dashes as underscores), which it overrides;
	// otherwise says what applies when neither is set.
	setting := func(name, usage, otherwise string) {
		env := "SITEDIAG_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		c.settings[env] = fs.String(name, "", usage+" (default $"+env+otherwise+")")
	}
	setting("dns-servers", "DNS servers, host:port, comma-separated", ", else the system's")
	setting("allow-networks", "CIDRs exempt from the SSRF deny table, such as 127.0.0.1/32", "")
	setting("chrome-path", "Chromium binary for the browser commands", ", else on PATH")
	setting("proxies", "country proxies for --proxy-country, us=http://…,de=socks5://…", "")
	setting("lighthouse-dir", "where Lighthouse is installed", ", else the set-up's folder")
	fs.DurationVar(&c.deadline, "deadline", 0, "bound on each operation, such as 90s (0: the library's 60s)")
}

// client is the configuration the flags give, the environment's
// (sitediag.ConfigFromEnv) where a flag is not set.
func (c *config) client() (sitediag.Config, error) {
	cfg, err := sitediag.ConfigFrom(func(name string) string {
		if p := c.settings[name]; p != nil && *p != "" {
			return *p
		}
		return os.Getenv(name)
	})
	cfg.Timeout = c.deadline
	return cfg, err
}

// output holds the flags that say where results go.
type output struct {
	list        string
	concurrency int
	file        string
	jsonl, json bool
	dir         string

	lines *json.Encoder // -o FILE
	f     *os.File
}

func (o *output) register(fs *flag.FlagSet) {
	fs.StringVar(&o.list, "l", "", "read targets from `FILE`, one per line (- for stdin; # starts a comment)")
	fs.IntVar(&o.concurrency, "c", 1, "diagnose `N` targets at once")
	fs.StringVar(&o.file, "o", "", "write one JSON object per target to `FILE` (JSON Lines)")
	fs.BoolVar(&o.jsonl, "jsonl", false, "print one JSON object per target, a line each")
	fs.BoolVar(&o.json, "json", false, "print one JSON object per target, indented")
	fs.StringVar(&o.dir, "output-dir", ".", "`DIR` for the files a command saves (screenshots, PDFs, reports)")
}

// addListed adds the targets of -l to targets.
func (o *output) addListed(targets []string, stdin io.Reader) ([]string, error) {
	if o.list == "" {
		return targets, nil
	}
	r := stdin
	if o.list != "-" {
		f, err := os.Open(o.list)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			targets = append(targets, line)
		}
	}
	return targets, sc.Err()
}

func (o *output) open(stdout io.Writer) error {
	if o.file == "" {
		return nil
	}
	f, err := os.Create(o.file)
	if err != nil {
		return err
	}
	o.f, o.lines = f, json.NewEncoder(f)
	return nil
}

func (o *output) close() {
	if o.f != nil {
		o.f.Close()
	}
}

// record is the JSON object of one target's diagnosis.
type record struct {
	Target    string       `json:"target"`
	Operation string       `json:"operation"`
	OK        bool         `json:"ok"`
	Data      any          `json:"data,omitempty"`
	Meta      any          `json:"meta,omitempty"`
	Findings  []string     `json:"findings"`
	Files     []string     `json:"files,omitempty"`
	Error     *recordError `json:"error,omitempty"`
}

type recordError struct {
	Code    sitediag.Code `json:"code"`
	Message string        `json:"message"`
}

// write prints one target's outcome, or its error, as the flags ask.
func (o *output) write(stdout, stderr io.Writer, op, target string, many bool, res *outcome, err error) {
	rec := record{Target: target, Operation: op, OK: err == nil, Findings: []string{}}
	if err != nil {
		rec.Error = &recordError{Code: sitediag.CodeOf(err), Message: message(err)}
	} else {
		rec.Data, rec.Meta, rec.Files = res.data, res.meta, res.files
		if res.findings != nil {
			rec.Findings = res.findings
		}
	}
	if o.lines != nil {
		o.lines.Encode(rec)
	}
	switch {
	case o.jsonl:
		enc := json.NewEncoder(stdout)
		if err != nil {
			enc = json.NewEncoder(stderr)
		}
		enc.Encode(rec)
	case o.json:
		enc := json.NewEncoder(stdout)
		if err != nil {
			enc = json.NewEncoder(stderr)
		}
		enc.SetIndent("", "  ")
		enc.Encode(rec)
	case err != nil:
		fmt.Fprintf(stderr, "sitediag %s: %s: %s: %s\n", op, target, rec.Error.Code, rec.Error.Message)
		if rec.Error.Code == sitediag.CodeTargetNotAllowed {
			fmt.Fprintln(stderr, "hint: the target is on a private or special network; to diagnose it anyway, allow that network with --allow-networks (SITEDIAG_ALLOW_NETWORKS), such as --allow-networks 127.0.0.1/32")
		}
	default:
		if many {
			fmt.Fprintf(stdout, "== %s\n", target)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		res.table(tw)
		tw.Flush()
		for _, f := range res.findings {
			fmt.Fprintf(stdout, "FINDING: %s\n", f)
		}
	}
}

// message is what an error says, without the code its line already
// shows.
func message(err error) string {
	var e *sitediag.Error
	if errors.As(err, &e) {
		return e.Details
	}
	return err.Error()
}

// settingsOf is the Settings field of an operation's result: the options
// it ran with, defaults filled in.
func settingsOf(result any) any {
	v := reflect.ValueOf(result).Elem()
	if f := v.FieldByName("Settings"); f.IsValid() {
		return f.Interface()
	}
	return nil
}

// artifacts saves the files a command makes in dir, named after the
// target.
type artifacts struct {
	dir, target string
	files       []string
	err         error
}

// unsafeName are the characters a file name made of a target leaves out.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// save writes body to <dir>/<target>.<ext> and returns its path; a
// failure is kept in a.err.
func (a *artifacts) save(ext string, body io.Reader) string {
	name := a.target
	if u, err := url.Parse(a.target); err == nil && u.Host != "" {
		name = u.Host + strings.TrimSuffix(u.Path, "/")
	}
	name = strings.Trim(unsafeName.ReplaceAllString(name, "_"), "_.")
	path := filepath.Join(a.dir, name+"."+ext)
	f, err := os.Create(path)
	if err == nil {
		_, err = io.Copy(f, body)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil && a.err == nil {
		a.err = err
	}
	a.files = append(a.files, path)
	return path
}

// progress shows how far a run is on stderr when it is a terminal: the
// seconds spent on one target, or for many the count done, the rate and
// the time left.
type progress struct {
	f        *os.File
	what     string
	total    int
	finished int
	start    time.Time
	stop     chan struct{}
	ended    chan struct{}
	mu       sync.Mutex
}

func newProgress(stderr io.Writer, what string, total int) *progress {
	p := &progress{what: what, total: total, start: time.Now()}
	f, ok := stderr.(*os.File)
	if !ok {
		return p
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return p
	}
	p.f, p.stop, p.ended = f, make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.ended)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			p.draw()
			select {
			case <-p.stop:
				p.clear()
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	took := time.Since(p.start)
	if p.total == 1 {
		fmt.Fprintf(p.f, "\rsitediag: %s… %ds ", p.what, int(took.Seconds()))
		return
	}
	rate := float64(p.finished) / took.Seconds()
	eta := "?"
	if rate > 0 {
		eta = time.Duration(float64(p.total-p.finished) / rate * float64(time.Second)).Round(time.Second).String()
	}
	fmt.Fprintf(p.f, "\rsitediag %s: %d/%d done, %.1f/s, %s left ", p.what, p.finished, p.total, rate, eta)
}

// clear wipes the line before a result is printed.
func (p *progress) clear() {
	if p.f != nil {
		fmt.Fprint(p.f, "\r\033[K")
	}
}

// done counts one target finished.
func (p *progress) done() {
	p.mu.Lock()
	p.finished++
	p.mu.Unlock()
	if p.f != nil {
		p.draw()
	}
}

// finish stops the display.
func (p *progress) finish() {
	if p.f != nil {
		close(p.stop)
		<-p.ended
	}
}
