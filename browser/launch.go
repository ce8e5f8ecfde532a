package browser

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ysmood/leakless"
)

// Names tried on PATH, in order, when no binary is configured.
var binaryNames = []string{"chromium", "chromium-browser", "google-chrome"}

// Grace periods when a browser is stopped.
const (
	termGrace  = 3 * time.Second // after SIGTERM, before SIGKILL
	sweepGrace = 5 * time.Second // for processes outside the group
	waitDelay  = 2 * time.Second // for the stderr pipe after exit
)

// markerVar is set in the environment of every browser process, so the
// strays that leave the process group (crash handlers) can be found.
const markerVar = "SITEDIAG_BROWSER_INSTANCE"

// Find returns the Chromium binary to run: path when it is set (a file,
// or a name looked up on PATH), else the first of chromium,
// chromium-browser and google-chrome found on PATH. Nothing is ever
// downloaded. The error wraps ErrNotFound when there is none.
func Find(path string) (string, error) {
	if path != "" {
		found, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("%w: %q: %w", ErrNotFound, path, err)
		}
		return found, nil
	}
	for _, name := range binaryNames {
		if found, err := exec.LookPath(name); err == nil {
			return found, nil
		}
	}
	return "", fmt.Errorf("%w: none of %s is on PATH", ErrNotFound, strings.Join(binaryNames, ", "))
}

// LaunchOptions configure Launch.
type LaunchOptions struct {
	// Path is the Chromium binary, as Find returns it. Required.
	Path string
	// ProxyURL is the filtering proxy that every request of the browser
	// goes through (a Network proxy's URL on loopback). Required: Launch
	// never starts a browser with direct network access.
	ProxyURL string
}

// Process is a running headless Chromium in its own process group, with
// a temporary profile. It is watched by leakless, so it dies with this
// process too. Close it when done.
type Process struct {
	// ControlURL is the browser's DevTools WebSocket URL on loopback.
	ControlURL string

	pid    int
	cmd    *exec.Cmd
	dir    string
	marker string
	stderr *stderrWatch
	exited chan struct{}
	// unheard is the leakless guard whose report of the browser's PID
	// Launch stopped waiting for.
	unheard   *leakless.Launcher
	closeOnce sync.Once
}

// Launch starts Chromium with the flags that keep it behind the proxy
// (see Flags) and waits, bounded by ctx, until its DevTools endpoint
// answers. On failure nothing is left running.
func Launch(ctx context.Context, opts LaunchOptions) (proc *Process, err error) {
	if opts.Path == "" || opts.ProxyURL == "" {
		return nil, errors.New("browser: Launch needs a binary and a proxy")
	}
	dir, err := os.MkdirTemp("", "sitediag-chromium-")
	if err != nil {
		return nil, fmt.Errorf("browser: %w", err)
	}
	var id [12]byte
	rand.Read(id[:])
	p := &Process{
		dir:    dir,
		marker: hex.EncodeToString(id[:]),
		stderr: newStderrWatch(),
		exited: make(chan struct{}),
	}
	defer func() {
		if err != nil {
			p.stop(0)
			err = fmt.Errorf("browser: starting %s: %w%s", opts.Path, err, p.stderr.tail())
		}
	}()
	args := Flags(opts.ProxyURL, filepath.Join(dir, "profile"))
	var guard *leakless.Launcher
	if leakless.Support() {
		if guard, p.cmd, err = leaklessCommand(ctx, opts.Path, args); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	} else {
		p.cmd = exec.Command(opts.Path, args...)
	}
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.Env = append(os.Environ(),
		// Keep every file the browser writes (crash database, NSS store,
		// caches) inside the temporary directory.
		"HOME="+filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"),
		markerVar+"="+p.marker,
	)
	p.cmd.Stderr = p.stderr
	p.cmd.WaitDelay = waitDelay
	if err := p.cmd.Start(); err != nil {
		return p, err
	}
	go func() {
		p.cmd.Wait()
		close(p.exited)
	}()
	if guard == nil {
		p.pid = p.cmd.Process.Pid
	} else {
		select {
		case p.pid = <-guard.Pid():
			if p.pid == 0 {
				return p, fmt.Errorf("leakless: %s", guard.Err())
			}
		case <-p.exited:
			p.unheard = guard
			return p, errors.New("exited at start")
		case <-ctx.Done():
			p.unheard = guard
			return p, ctx.Err()
		}
	}
	select {
	case p.ControlURL = <-p.stderr.url:
		return p, nil
	case <-p.exited:
		return p, errors.New("exited before its DevTools endpoint was up")
	case <-ctx.Done():
		return p, ctx.Err()
	}
}

// leaklessLockPort is the loopback port leakless listens on, as a lock
// across processes, while it writes its guard binary to the temporary
// directory (leakless.Launcher's Lock).
const leaklessLockPort = 2978

// leaklessLockWait bounds the wait for that lock. Writing the binary
// takes milliseconds; a port held longer is some other program's, and the
// binary is then found (or written) without the lock.
const leaklessLockWait = 5 * time.Second

// leaklessCommand wraps the command in a leakless guard. leakless's own
// Command waits for its lock port with no bound and no context, so the
// guard binary is put in place here first, under the same lock waited
// for no longer than ctx and leaklessLockWait allow; Command then gets a
// lock on a free port, which never waits, and finds the binary there.
// leakless panics on failure; the panic is returned as an error.
func leaklessCommand(ctx context.Context, path string, args []string) (l *leakless.Launcher, cmd *exec.Cmd, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("browser: leakless: %v", v)
		}
	}()
	unlock, err := lockPort(ctx, leaklessLockPort, leaklessLockWait)
	if err != nil {
		return nil, nil, fmt.Errorf("browser: leakless: waiting for its lock on port %d: %w", leaklessLockPort, err)
	}
	func() {
		defer unlock()
		leakless.GetLeaklessBin()
	}()
	l = leakless.New()
	l.Lock = 0
	return l, l.Command(path, args...), nil
}

// lockPort takes the lock leakless.LockPort takes, a listener on
// 127.0.0.1:port, trying until ctx ends (an error) or wait passes (a
// no-op unlock: the lock is given up on).
func lockPort(ctx context.Context, port int, wait time.Duration) (unlock func(), err error) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	giveUp := time.NewTimer(wait)
	defer giveUp.Stop()
	retry := time.NewTicker(20 * time.Millisecond)
	defer retry.Stop()
	for {
		if ln, err := net.Listen("tcp", addr); err == nil {
			return func() { ln.Close() }, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-giveUp.C:
			return func() {}, nil
		case <-retry.C:
		}
	}
}

// Flags returns the command line of a browser whose only way out is the
// proxy at proxyURL, with its profile in dir:
//
//   - --proxy-server with --proxy-bypass-list=<-loopback> (else loopback
//     would bypass the proxy), and --host-resolver-rules that make the
//     browser's own resolver fail for every name but the proxy's;
//   - --disable-quic and --force-webrtc-ip-handling-policy=
//     disable_non_proxied_udp, so no UDP leaves around the proxy;
//   - --block-new-web-contents (no pop-ups), --ignore-certificate-errors
//     (a diagnosis reports on bad certificates rather than stopping);
//   - background networking, component updates, sync, extensions and
//     first-run tasks off; --no-sandbox when running as root;
//   - the omnibox pop-up WebUIs and the spare renderer off, so that a job
//     costs one renderer process, not three;
//   - RenderDocument off, so that a job's first navigation commits in its
//     blank page's own frame and renderer (a page with no site yet takes
//     the site it navigates to) instead of building a second frame beside
//     it and swapping it in, about 25 ms of every job. Site isolation is
//     unchanged: a page that moves to another site still gets a renderer
//     of its own, and each job keeps its own browser context and proxy;
//   - a page's JavaScript heap capped at 1 GiB (--js-flags=
//     --max-old-space-size): a page that allocates without bound crashes
//     its renderer there (the job fails with ErrCrashed) instead of
//     growing to V8's own 4 GiB limit, per job.
//
// Both spellings of the WebRTC switch are passed: Chromium 156 reads
// --webrtc-ip-handling-policy, older builds the --force- form.
func Flags(proxyURL, dir string) []string {
	proxyHost := proxyURL
	if u, err := url.Parse(proxyURL); err == nil && u.Hostname() != "" {
		proxyHost = u.Hostname()
	}
	flags := []string{
		"--headless",
		"--remote-debugging-address=127.0.0.1",
		"--remote-debugging-port=0",
		"--user-data-dir=" + dir,
		"--proxy-server=" + proxyURL,
		"--proxy-bypass-list=<-loopback>",
		"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE " + proxyHost,
		"--disable-quic",
		"--webrtc-ip-handling-policy=disable_non_proxied_udp",
		"--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
		"--block-new-web-contents",
		"--ignore-certificate-errors",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-extensions",
		"--disable-default-apps",
		"--disable-domain-reliability",
		"--disable-client-side-phishing-detection",
		"--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider,WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess,RenderDocument",
		"--metrics-recording-only",
		"--no-first-run",
		"--no-default-browser-check",
		"--no-startup-window",
		"--password-store=basic",
		"--mute-audio",
		"--hide-scrollbars",
		"--js-flags=--max-old-space-size=1024",
	}
	if os.Geteuid() == 0 {
		flags = append(flags, "--no-sandbox")
	}
	return flags
}

// PID is the browser's main process, the leader of its process group.
func (p *Process) PID() int { return p.pid }

// Exited is closed when the browser (or its leakless guard) has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Close stops the browser and everything it started: SIGTERM so it
// shuts down and reaps its children, SIGKILL to the whole process group
// after a grace period, then any stray that left the group (found by the
// marker in its environment, killed by PID), and removes the temporary
// profile. It is safe to call more than once.
func (p *Process) Close() error {
	p.stop(termGrace)
	return nil
}

// stop stops the browser as Close describes, with grace between SIGTERM
// and SIGKILL; zero kills at once (a browser that failed to start has
// nothing to shut down cleanly).
func (p *Process) stop(grace time.Duration) {
	p.closeOnce.Do(func() {
		if p.cmd != nil && p.cmd.Process != nil {
			select {
			case <-p.exited:
			default:
				if p.pid > 0 && grace > 0 {
					syscall.Kill(p.pid, syscall.SIGTERM)
					t := time.NewTimer(grace)
					select {
					case <-p.exited:
					case <-t.C:
					}
					t.Stop()
				}
			}
			if p.pid > 0 {
				syscall.Kill(-p.pid, syscall.SIGKILL)
			}
			p.cmd.Process.Kill()
			<-p.exited
			p.killUnheard()
		}
		sweep(p.marker)
		removeSingletonDir(filepath.Join(p.dir, "profile"))
		os.RemoveAll(p.dir)
	})
}

// removeSingletonDir removes the folder Chromium makes in TMPDIR for its
// singleton socket (org.chromium.Chromium.*), which the profile's
// SingletonSocket link points into: a browser that is killed, as stop
// does, cannot remove it itself.
func removeSingletonDir(profile string) {
	target, err := os.Readlink(filepath.Join(profile, "SingletonSocket"))
	if err != nil {
		return
	}
	dir := filepath.Dir(target)
	if filepath.Dir(dir) == filepath.Clean(os.TempDir()) && strings.HasPrefix(filepath.Base(dir), "org.chromium.Chromium.") {
		os.RemoveAll(dir)
	}
}

// unheardWait bounds the wait for a dead leakless guard's last report.
const unheardWait = time.Second

// killUnheard kills the process group of a browser whose leakless guard
// was killed before Launch heard its PID. Once the guard is gone,
// leakless reports the PID (or its failure) at once, and would block
// forever if nobody took the report.
func (p *Process) killUnheard() {
	if p.unheard == nil {
		return
	}
	t := time.NewTimer(unheardWait)
	defer t.Stop()
	select {
	case pid := <-p.unheard.Pid():
		if pid > 0 {
			syscall.Kill(-pid, syscall.SIGKILL)
		}
	case <-t.C:
	}
}

// sweep kills the live processes carrying marker in their environment,
// until none is left or the grace period is over.
func sweep(marker string) {
	deadline := time.Now().Add(sweepGrace)
	for {
		pids := marked(marker)
		if len(pids) == 0 || time.Now().After(deadline) {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// marked returns the live processes whose environment carries the
// browser instance marker: those that left the process group, such as
// crash handlers. (Zombies have no environment and are not listed; the
// browser's own children rewrite their command line over their
// environment, so the process group is what finds them.)
func marked(marker string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	needle := []byte(markerVar + "=" + marker + "\x00")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(env, needle) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// devtoolsLine is how Chromium announces its endpoint on stderr.
var devtoolsLine = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

// stderrWatch reads the browser's stderr: it hands over the DevTools URL
// once and keeps the last lines for error messages.
type stderrWatch struct {
	url   chan string
	mu    sync.Mutex
	buf   []byte
	lines []string
	found bool
}

func newStderrWatch() *stderrWatch { return &stderrWatch{url: make(chan string, 1)} }

const stderrTailLines = 8

func (w *stderrWatch) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := string(bytes.TrimSpace(w.buf[:i]))
		w.buf = w.buf[i+1:]
		if m := devtoolsLine.FindStringSubmatch(line); m != nil && !w.found {
			w.found = true
			w.url <- m[1]
		}
		if line != "" {
			w.lines = append(w.lines, line)
			if len(w.lines) > stderrTailLines {
				w.lines = w.lines[1:]
			}
		}
	}
	if len(w.buf) > 64<<10 {
		w.buf = w.buf[:0]
	}
	return len(b), nil
}

// tail returns the last stderr lines as an error-message suffix.
func (w *stderrWatch) tail() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.lines) == 0 {
		return ""
	}
	return "; stderr: " + strings.Join(w.lines, " | ")
}
