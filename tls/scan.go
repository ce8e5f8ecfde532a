// Package tls scans a server's TLS configuration the way sslscan and
// testssl.sh do: by raw handshakes. It writes ClientHellos byte by byte
// (an SSL 2.0 CLIENT-HELLO, SSL 3.0 to TLS 1.2 hellos offering the whole
// IANA suite registry, a TLS 1.3 hello with supported_versions and
// key_share), reads the server's answer and decides from what the server
// chose, never from whether a full handshake completes. Go's crypto/tls
// cannot speak SSL 2.0 or 3.0, so it is used only for one full handshake
// that fetches the certificate; the certificate is judged by hand
// afterwards, so an invalid one is a finding, not a failure.
//
// Cipher suites are enumerated per protocol by repeated hellos that drop
// the suite the server picked, which gives the server's preference order
// when it enforces one. Vulnerabilities are derived from what was
// enumerated.
//
// Every connection goes through the caller's netx.DialFunc, so the caller's
// network policy applies to each probe.
//
// # Concurrency
//
// Scan runs its probes in parallel, a few at a time (Options.Parallel),
// and is safe to call from several goroutines.
package tls

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sitediag/sitediag/net/netx"
)

// Defaults for the zero Options.
const (
	DefaultProbeTimeout = 5 * time.Second
	DefaultParallel     = 6
)

// ErrNoProtocol means no protocol version at all could be negotiated:
// the port refused connections, or the server refused every hello.
// Scan returns it as a *NoProtocolError that says which.
var ErrNoProtocol = errors.New("tls: no protocol version could be negotiated")

// Options tune a scan. The zero value is ready to use.
type Options struct {
	// Roots are the trust anchors the certificate is verified against.
	// If nil, the system's roots.
	Roots *x509.CertPool
	// Now returns the time the certificate is judged at. If nil,
	// time.Now.
	Now func() time.Time
	// ProbeTimeout bounds each probe: connect, hello and answer. If zero,
	// DefaultProbeTimeout.
	ProbeTimeout time.Duration
	// Parallel is the number of probes (connections) in flight at once.
	// If zero, DefaultParallel.
	Parallel int
}

// Result is the outcome of a scan.
type Result struct {
	// Protocols says which versions the server negotiates.
	Protocols Protocols `json:"protocols"`
	// Certificate describes the certificate the server presents.
	Certificate Certificate `json:"certificate"`
	// CipherSuites lists the suites each version accepts.
	CipherSuites CipherSuites `json:"cipherSuites"`
	// Vulnerabilities are verdicts derived from what was enumerated.
	Vulnerabilities Vulnerabilities `json:"vulnerabilities"`
	// Advisory are signals that are not verdicts.
	Advisory Advisory `json:"advisory"`
	// Partial is true when the deadline (ctx's) came before every probe
	// had finished: what was found by then is reported, and Unfinished
	// says what was not.
	Partial bool `json:"partial"`
	// Unfinished lists what the deadline cut short; its lists are empty
	// when Partial is false.
	Unfinished Unfinished `json:"unfinished"`
	// Grade is the letter SSL Labs' SSL Server Rating Guide gives: A+
	// to F, M when the certificate does not name the host, T when it is
	// not trusted. A+ needs HSTS, which a TLS scan does not read, so the
	// best given is A.
	Grade string `json:"grade"`
	// GradeReasons name each cap on the grade ("B: TLS 1.0 is offered",
	// "T: the certificate is not trusted (…)"), then the warnings that
	// make an A an A-.
	GradeReasons []string `json:"gradeReasons"`
	// ClientSimulation says what each of a documented list of real
	// clients (docs/tls.md) would negotiate, or why it fails; null when
	// no version from SSL 3.0 up was found.
	ClientSimulation []SimulatedClient `json:"clientSimulation"`
	// SupportedGroups are the key-exchange groups the server accepts.
	SupportedGroups SupportedGroups `json:"supportedGroups"`
	// ClientCertificateRequested is true when the server asks for a
	// client certificate (a CertificateRequest in its flight), false
	// when a flight came without one, null when none was read.
	ClientCertificateRequested *bool `json:"clientCertificateRequested"`
	// ClientCertificateRequired is true when the server, having asked,
	// refuses a client without a certificate; false when it goes on
	// without one, or does not ask; null when not told.
	ClientCertificateRequired *bool `json:"clientCertificateRequired"`
	// ClientCertificateCANames are the distinguished names (RFC 4514) of
	// the certificate authorities the server accepts client
	// certificates from; empty when it names none, does not ask, or was
	// not asked.
	ClientCertificateCANames []string `json:"clientCertificateCaNames"`
}

// SupportedGroups are the groups a server accepts, as testssl lists
// them ("Elliptic curves offered", "TLS 1.3 named groups").
type SupportedGroups struct {
	// TLS10To12 are the elliptic curves of ECDHE from TLS 1.0 to TLS 1.2,
	// enumerated at the newest of those versions, in the server's order
	// when it has one (else the scan's: X25519, P-256, P-384, P-521,
	// X448, brainpool, the rest); absent when not enumerated (no ECDHE,
	// no such version, or unfinished).
	TLS10To12 []Group `json:"tls10To12,omitempty"`
	// TLS13 are the TLS 1.3 groups, as CipherSuites.TLS13.KeyExchange;
	// absent without TLS 1.3.
	TLS13 []Group `json:"tls13,omitempty"`
}

// ecdheSuites are the registry's ECDHE suites.
func ecdheSuites() []uint16 {
	return slices.DeleteFunc(suitesFor(false), func(id uint16) bool { s, _ := SuiteByID(id); return !s.ecdhe() })
}

// Unfinished says what a partial scan did not finish, by the keys the
// result uses.
type Unfinished struct {
	// Protocols are the versions ("ssl3", "tls12", …) whose support was
	// not decided; they read false in Protocols.
	Protocols []string `json:"protocols"`
	// CipherSuites are the supported versions whose suite lists (and
	// preference) were not finished.
	CipherSuites []string `json:"cipherSuites"`
	// Checks are the checks not finished, by their result keys:
	// "fallbackScsv", "tls13Groups", "legacyGroups", "clientSimulation",
	// "heartbleed", "robot",
	// "renegotiation", "sessionResumption", "ocspStapling" (the full
	// handshake).
	Checks []string `json:"checks"`
}

// Protocols says which protocol versions the server negotiates.
type Protocols struct {
	SSL2  bool `json:"ssl2"`
	SSL3  bool `json:"ssl3"`
	TLS10 bool `json:"tls10"`
	TLS11 bool `json:"tls11"`
	TLS12 bool `json:"tls12"`
	TLS13 bool `json:"tls13"`
}

// CipherSuites lists, per protocol version, the suites the server
// accepts; an unsupported version has none.
type CipherSuites struct {
	SSL2  ProtocolSuites `json:"ssl2"`
	SSL3  ProtocolSuites `json:"ssl3"`
	TLS10 ProtocolSuites `json:"tls10"`
	TLS11 ProtocolSuites `json:"tls11"`
	TLS12 ProtocolSuites `json:"tls12"`
	TLS13 ProtocolSuites `json:"tls13"`
}

// ProtocolSuites are the suites one protocol version accepts.
type ProtocolSuites struct {
	// ServerPreference is true when the server picks by its own order
	// rather than the client's; false also when that could not be told
	// (see Preference).
	ServerPreference bool `json:"serverPreference"`
	// Preference says whose order the server follows: PreferenceServer,
	// PreferenceClient, or PreferenceUnknown when fewer than two suites
	// are accepted (or the version is not supported), so there is no
	// order to observe.
	Preference string `json:"preference"`
	// Suites are IANA names (SSL 2.0 cipher kinds for SSL 2.0), in the
	// server's preference order when it enforces one, else in registry
	// order.
	Suites []string `json:"suites"`
	// KeyExchange lists the ephemeral groups the server used with this
	// version, in the order first seen: the curve of ECDHE suites and the
	// group of DHE suites (SSL 3.0–TLS 1.2, from ServerKeyExchange); for
	// TLS 1.3 every group the server accepts, post-quantum hybrids
	// included, in its order of preference. Empty without ephemeral
	// suites.
	KeyExchange []Group `json:"keyExchange"`
}

// Values of ProtocolSuites.Preference.
const (
	PreferenceServer  = "server"
	PreferenceClient  = "client"
	PreferenceUnknown = "unknown"
)

// protocol is one version the scan probes.
type protocol struct {
	version uint16
	name    string // as OpenSSL names it, in evidence
	key     string // the result's JSON key
}

// protocols are the versions probed, oldest first.
var protocols = []protocol{
	{versionSSL2, "SSLv2", "ssl2"}, {versionSSL3, "SSLv3", "ssl3"}, {versionTLS10, "TLSv1.0", "tls10"},
	{versionTLS11, "TLSv1.1", "tls11"}, {versionTLS12, "TLSv1.2", "tls12"}, {versionTLS13, "TLSv1.3", "tls13"},
}

func versionName(v uint16) string {
	for _, p := range protocols {
		if p.version == v {
			return p.name
		}
	}
	return fmt.Sprintf("0x%04X", v)
}

// enumeration is what the probes learned about one version.
type enumeration struct {
	protocol
	// suites are the accepted suites, in the order they were picked.
	suites []uint16
	// ssl2Ciphers are SSL 2.0's cipher kinds.
	ssl2Ciphers []string
	// preference: see ProtocolSuites; "" until observed.
	preference string
	// compression is true when the server picked DEFLATE.
	compression bool
	// renegotiationInfo is true when a ServerHello carried it.
	renegotiationInfo bool
	// groups maps the suites with an ephemeral key exchange to the group
	// they used.
	groups map[uint16]Group
	// groups13 are the TLS 1.3 groups the server accepts, in its order.
	groups13 []Group
	// certs is the chain from the first answer, when it was sent in
	// clear, and certRequest its CertificateRequest.
	certs       [][]byte
	certRequest *certRequest
	// detected is true once the first hello was answered (or refused),
	// finished once the suite list is complete; both stay false when the
	// deadline came first.
	detected, finished bool
	// unanswered is true when a hello of the suite loop got no answer
	// (errUnanswered), unansweredOrder when the preference probe got
	// none: the list, or the order, is unfinished.
	unanswered      bool
	unansweredOrder atomic.Bool
}

func (e *enumeration) supported() bool { return len(e.suites) > 0 || e.ssl2Ciphers != nil }

// keyExchange lists the distinct groups of the accepted suites, in the
// order the suites were picked.
func (e *enumeration) keyExchange() []Group {
	if e.groups13 != nil {
		return e.groups13
	}
	groups := []Group{}
	for _, id := range e.suites {
		g, ok := e.groups[id]
		if ok && !slices.ContainsFunc(groups, func(h Group) bool { return h.Name == g.Name && h.Bits == g.Bits }) {
			groups = append(groups, g)
		}
	}
	return groups
}

// scanner holds one scan's settings and what its probes saw.
type scanner struct {
	dial       netx.DialFunc
	address    string // host:port, what dial is asked for
	host       string
	serverName string
	opts       Options

	// slots holds a token per connection open, at most Parallel.
	slots chan struct{}
	// serial is set once a probe went unanswered; from then on one holds
	// the token of the one probe in flight.
	serial atomic.Bool
	one    chan struct{}
	// alive is set once any probe got an answer or an alert.
	alive atomic.Bool

	mu         sync.Mutex
	connectErr *failure // the last failed connection
	answer     *failure // the most telling failed answer to a hello
	connected  bool     // a connection succeeded
	versions   []uint16 // versions from SSL 3.0 up whose first hello was accepted
	// unansweredVersions are the versions whose first hello went
	// unanswered, retried: their support is unknown.
	unansweredVersions []string
	cut                []string // checks the deadline cut short, by result key

	// detecting counts the SSL 3.0–TLS 1.3 enumerations that have not
	// yet had their first answer.
	detecting sync.WaitGroup
}

// Scan scans the server at address (host:port, or host alone for port
// 443), every connection opened by dial, once per probe: dial is where
// the caller pins addresses and applies its network policy. host is the
// name or IP literal the caller asked for: a name is sent as SNI and
// both are checked against the certificate.
//
// When ctx's deadline comes before every probe has finished, Scan
// returns what was found by then with Result.Partial set, as long as at
// least one version was found supported.
//
// # Errors
//
// ErrNoProtocol (wrapping the connection error when there was one) when
// nothing could be negotiated; ctx's error when it was cancelled, or
// when its deadline came before any version was found.
func Scan(ctx context.Context, dial netx.DialFunc, address string, opts Options) (*Result, error) {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		host, address = address, net.JoinHostPort(address, "443")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = DefaultProbeTimeout
	}
	if opts.Parallel <= 0 {
		opts.Parallel = DefaultParallel
	}
	s := &scanner{dial: dial, address: address, host: host, opts: opts, slots: make(chan struct{}, opts.Parallel), one: make(chan struct{}, 1)}
	if _, err := netip.ParseAddr(host); err != nil {
		s.serverName = host
	}

	enums := make([]*enumeration, len(protocols))
	var hs *handshake
	var f findings
	s.detecting.Add(len(protocols) - 1) // all but SSL 2.0
	// Tasks are not limited: probes wait for one of the scanner's slots,
	// so a task waiting for others (a check, an enumeration for its
	// preference probe) never holds what they need.
	var wg sync.WaitGroup
	// Newest first: TLS 1.2 usually has the longest chain of probes.
	for i, p := range slices.Backward(protocols) {
		wg.Go(func() {
			if p.version == versionSSL2 {
				enums[i] = s.ssl2(ctx)
			} else {
				enums[i] = s.enumerate(ctx, p)
			}
		})
	}
	wg.Go(func() { hs = s.handshake(ctx) })
	if opts.Roots == nil {
		wg.Go(func() { x509.SystemCertPool() }) // loads and caches the roots while the probes run
	}
	for _, check := range s.checks(&f) {
		wg.Go(func() {
			s.detecting.Wait()
			check(ctx)
		})
	}
	wg.Wait()
	// Last, alone: OpenSSL's s_server, which serves one connection at a
	// time, sleeps a second (s_server.c, www_body: OSSL_sleep(1000) on
	// a read to retry) after it refuses a renegotiation; any probe
	// still queued behind it would wait that second. Its refusal has
	// come by then, so the scan does not.
	f.renegotiation = s.renegotiation(ctx)
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil, ctx.Err()
	}
	if hs.state != nil { // a full handshake is an answer too
		for _, e := range enums {
			if e.version == hs.state.Version && !e.supported() {
				e.suites = []uint16{hs.state.CipherSuite}
			}
		}
	}
	if !slices.ContainsFunc(enums, (*enumeration).supported) {
		return nil, s.noProtocol(ctx)
	}
	r := s.result(enums, hs, &f)
	r.Grade, r.GradeReasons = rate(r)
	if r.ClientCertificateCANames == nil {
		r.ClientCertificateCANames = []string{}
	}
	return r, nil
}

// noProtocol is Scan's error when no version was found: ctx's when it
// ended first, else a *NoProtocolError saying what the server did.
func (s *scanner) noProtocol(ctx context.Context) error {
	if err := ended(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case len(s.unansweredVersions) > 0 && len(s.unansweredVersions) < len(protocols)-1 && s.answer != nil:
		// Some versions refused, others never answered: not a refusal of
		// every version, so say which went unanswered.
		unanswered := slices.SortedFunc(slices.Values(s.unansweredVersions), func(a, b string) int {
			return slices.IndexFunc(protocols, func(p protocol) bool { return p.name == a }) -
				slices.IndexFunc(protocols, func(p protocol) bool { return p.name == b })
		})
		reason := "no answer in " + seconds(s.opts.ProbeTimeout) + " to the " + strings.Join(unanswered, ", ") +
			" hello; the other versions: " + s.answer.reason
		return &NoProtocolError{Reason: reason, Err: errUnanswered}
	case s.connectErr != nil && !s.connected:
		return &NoProtocolError{Reason: s.connectErr.reason, Err: s.connectErr.err}
	case s.answer != nil:
		return &NoProtocolError{Reason: s.answer.reason, Err: s.answer.err}
	}
	return &NoProtocolError{Reason: "no version was accepted"}
}

// findings are the outcomes of the checks that run once every version
// has had its first answer.
type findings struct {
	fallback      *bool
	groups13      []Group
	legacyGroups  []Group
	clients       []SimulatedClient
	heartbleed    Heartbleed
	robot         Robot
	renegotiation Renegotiation
	resumption    resumption
}

// checks are the checks that fill f.
func (s *scanner) checks(f *findings) []func(context.Context) {
	return []func(context.Context){
		func(ctx context.Context) { f.fallback = s.fallbackSCSV(ctx) },
		func(ctx context.Context) { f.groups13 = s.tls13Groups(ctx) },
		func(ctx context.Context) { f.legacyGroups = s.legacyCurves(ctx, ecdheSuites()) },
		func(ctx context.Context) { f.clients = s.simulateClients(ctx) },
		func(ctx context.Context) { f.heartbleed = s.heartbleed(ctx) },
		func(ctx context.Context) { f.robot = s.robot(ctx) },
		func(ctx context.Context) { f.resumption = s.resumption(ctx) },
	}
}

// cutShort reports whether ctx has ended or one of errs is a probe that
// went unanswered, and if so records check as unfinished.
func (s *scanner) cutShort(ctx context.Context, check string, errs ...error) bool {
	if ended(ctx) == nil && !slices.ContainsFunc(errs, func(err error) bool { return errors.Is(err, errUnanswered) }) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cut = append(s.cut, check)
	return true
}

// legacyVersion is the newest version from TLS 1.0 to TLS 1.2 whose
// first hello was accepted, or 0: the version the checks that need
// extensions and a pre-TLS 1.3 handshake use.
func (s *scanner) legacyVersion() uint16 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var v uint16
	for _, w := range s.versions {
		if w >= versionTLS10 && w <= versionTLS12 {
			v = max(v, w)
		}
	}
	return v
}

// noLegacyVersion is why a check that runs at legacyVersion did not.
const noLegacyVersion = "no version from TLS 1.0 to TLS 1.2"

// legacyCheck begins a check that runs at legacyVersion: it returns the
// version and the check's Finding, not tested when the version is 0.
func (s *scanner) legacyCheck() (uint16, Finding) {
	f := Finding{Evidence: []string{}}
	v := s.legacyVersion()
	if v == 0 {
		f.notTested(noLegacyVersion)
	}
	return v, f
}

// tls13Groups finds the groups a TLS 1.3 server accepts, in its order:
// a hello offering every group (post-quantum hybrids first), then again
// without each group the server chose (in its key share, or its
// HelloRetryRequest), until it refuses. Nil when TLS 1.3 is not
// supported.
func (s *scanner) tls13Groups(ctx context.Context) []Group {
	if !s.supports(versionTLS13) {
		return nil
	}
	return s.groupOrder(ctx, "tls13Groups", allTLS13Groups, func(groups []uint16) hello {
		return hello{version: versionTLS13, suites: suitesFor(true), serverName: s.serverName, groups: groups}
	})
}

// groupOrder finds the groups a server accepts, in its order: a hello
// (newHello's) offering every group of offered, then again without each
// group the server chose, until it refuses or names none. check is the
// result key an unfinished enumeration is recorded under; it, and one
// that found nothing, return nil.
func (s *scanner) groupOrder(ctx context.Context, check string, offered []uint16, newHello func(groups []uint16) hello) []Group {
	var found []Group
	offered = slices.Clone(offered)
	for len(offered) > 0 {
		h := newHello(offered)
		rep, err := s.probe(ctx, h.marshal(), func(r io.Reader) (*reply, error) { return readReply(r, readNeeds{}) })
		if s.cutShort(ctx, check, err) {
			return nil
		}
		if err != nil || rep.version != h.version || rep.group == nil {
			break
		}
		i := slices.IndexFunc(offered, func(id uint16) bool { return groupByID(id).Name == rep.group.Name })
		if i < 0 {
			break // a group not offered: stop rather than loop
		}
		found = append(found, *rep.group)
		offered = slices.Delete(offered, i, i+1)
	}
	return found
}

// probe sends payload on a new connection and reads the answer with
// read. A connection that cannot be opened is recorded; ctx's end is
// the only error that stops the scan.
func (s *scanner) probe(ctx context.Context, payload []byte, read func(io.Reader) (*reply, error)) (*reply, error) {
	var rep *reply
	err := s.withConn(ctx, func(_ context.Context, conn net.Conn) error {
		_, err := conn.Write(payload) // a reset before the hello left is an answer too
		if err == nil {
			rep, err = read(conn)
		}
		if err != nil { // kept for the error when no version at all is found
			s.noteAnswer(classify(err, s.opts.ProbeTimeout))
		}
		return err
	})
	return rep, err
}

// noteAnswer keeps f if it tells more than the failures seen so far.
func (s *scanner) noteAnswer(f failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.answer == nil || f.rank > s.answer.rank {
		s.answer = &f
	}
}

// errUnanswered means a probe got no answer: it timed out or the
// connection was reset, and again on its one retry (a server that has
// answered nothing yet gets none). What it was to find is unfinished,
// never a refusal.
var errUnanswered = errors.New("tls: no answer to the probe, nor to its retry")

// withConn waits until fewer than Parallel probes are in flight, then
// connects and runs f, bounded by ProbeTimeout from the connection on.
// A probe that times out or is reset is run once more, and from then on
// the scan sends one probe at a time: a server that serves connections
// one by one (s_server) or is slow makes the parallel probes queue
// behind each other until they time out. Failing again, the error
// wraps errUnanswered.
//
// A server that has answered nothing yet is not retried: a silent
// server stays silent, and retrying each probe one by one would only
// delay saying so.
func (s *scanner) withConn(ctx context.Context, f func(ctx context.Context, conn net.Conn) error) error {
	err := s.attempt(ctx, f)
	if !s.retriable(ctx, err) {
		return err
	}
	if s.alive.Load() {
		s.serial.Store(true)
		if err = s.attempt(ctx, f); !s.retriable(ctx, err) {
			return err
		}
	}
	return fmt.Errorf("%w: %w", errUnanswered, err)
}

// retriable reports whether err is a probe's own timeout or a reset,
// while the scan's ctx goes on.
func (s *scanner) retriable(ctx context.Context, err error) bool {
	var ne net.Error
	switch {
	case err == nil, ended(ctx) != nil:
		return false
	case isReset(err), errors.Is(err, context.DeadlineExceeded):
		return true
	}
	return errors.As(err, &ne) && ne.Timeout()
}

// attempt is one try of withConn's.
func (s *scanner) attempt(ctx context.Context, f func(ctx context.Context, conn net.Conn) error) error {
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	case <-ctx.Done():
		return ctx.Err()
	}
	if s.serial.Load() {
		select {
		case s.one <- struct{}{}:
			defer func() { <-s.one }()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.ProbeTimeout)
	defer cancel()
	conn, err := s.connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	err = f(ctx, conn)
	var alert *alertError
	if err == nil || errors.As(err, &alert) || remoteAlert(err) {
		s.alive.Store(true) // an answer, or a refusal in words
	}
	return err
}

// ended is ctx.Err(), or DeadlineExceeded once ctx's deadline has
// passed: a connection deadline set to the same instant can fire before
// the context's own timer marks it done, and a probe that failed that way
// ran out of time, it was not refused.
func ended(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}

// connect dials and ties the connection's deadline to ctx.
func (s *scanner) connect(ctx context.Context) (net.Conn, error) {
	conn, err := s.dial(ctx, "tcp", s.address)
	// A connect reset by the peer was accepted first (the reset came
	// before the dialler looked): the server is there and resets.
	reset := err != nil && isReset(err)
	s.mu.Lock()
	if err != nil && !reset {
		f := connectFailure(err, s.opts.ProbeTimeout)
		s.connectErr = &f
	} else {
		s.connected = true
	}
	s.mu.Unlock()
	if reset {
		s.noteAnswer(classify(err, s.opts.ProbeTimeout))
	}
	if err != nil {
		return nil, err
	}
	if d, ok := ctx.Deadline(); ok {
		conn.SetDeadline(d)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	return &stoppingConn{Conn: conn, stop: stop}, nil
}

// stoppingConn releases its context hook when closed.
type stoppingConn struct {
	net.Conn
	stop func() bool
}

func (c *stoppingConn) Close() error {
	c.stop()
	return c.Conn.Close()
}

// enumerate finds the suites version p accepts: a hello offering every
// suite, then again without each suite the server picked, until it
// refuses. The first answer also says whether p is supported at all and
// carries the certificate. As soon as two suites are known, a hello
// offering them in reverse order tells, beside the loop, whether the
// server has an order of its own. When ctx ends first, e says how far
// it got.
func (s *scanner) enumerate(ctx context.Context, p protocol) *enumeration {
	detected := sync.OnceFunc(s.detecting.Done)
	defer detected()
	e := &enumeration{protocol: p, groups: map[uint16]Group{}}
	var preference sync.WaitGroup
	defer preference.Wait()
	offered := suitesFor(p.version == versionTLS13)
	for len(offered) > 0 {
		h := hello{version: p.version, suites: offered, serverName: s.serverName}
		rep, err := s.probe(ctx, h.marshal(), func(r io.Reader) (*reply, error) {
			return readReply(r, readNeeds{certificate: len(e.suites) == 0, flight: len(e.suites) == 0})
		})
		if ended(ctx) != nil {
			return e
		}
		if errors.Is(err, errUnanswered) { // neither a refusal nor an answer: the list stops unfinished
			e.unanswered = true
			if !e.detected {
				s.mu.Lock()
				s.unansweredVersions = append(s.unansweredVersions, p.name)
				s.mu.Unlock()
			}
			break
		}
		accepted := err == nil && rep.version == p.version && slices.Contains(offered, rep.suite)
		if !e.detected {
			e.detected = true
			if accepted {
				e.certs, e.certRequest = rep.certs, rep.certRequest
				s.mu.Lock()
				s.versions = append(s.versions, p.version)
				s.mu.Unlock()
			}
			detected()
		}
		if !accepted {
			break
		}
		e.suites = append(e.suites, rep.suite)
		e.compression = e.compression || rep.compression == 1
		e.renegotiationInfo = e.renegotiationInfo || rep.renegotiationInfo
		if rep.group != nil {
			e.groups[rep.suite] = *rep.group
		}
		offered = slices.DeleteFunc(offered, func(id uint16) bool { return id == rep.suite })
		if len(e.suites) == 2 {
			first, second := e.suites[0], e.suites[1]
			preference.Go(func() {
				var answered bool
				e.preference, answered = s.order(ctx, p, second, first)
				if !answered {
					e.unansweredOrder.Store(true)
				}
			})
		}
	}
	preference.Wait()
	e.finished = ended(ctx) == nil && !e.unanswered && !e.unansweredOrder.Load()
	return e
}

// order offers second before first, which the server picked first
// when offered both in the other order: picking first again means the
// server has an order of its own, picking second that it follows the
// client's; a refusal leaves it unknown, and so does no answer, which
// answered false reports.
func (s *scanner) order(ctx context.Context, p protocol, second, first uint16) (preference string, answered bool) {
	h := hello{version: p.version, suites: []uint16{second, first}, serverName: s.serverName}
	rep, err := s.probe(ctx, h.marshal(), func(r io.Reader) (*reply, error) { return readReply(r, readNeeds{}) })
	switch {
	case err != nil:
		return PreferenceUnknown, !errors.Is(err, errUnanswered)
	case rep.suite == first:
		return PreferenceServer, true
	case rep.suite == second:
		return PreferenceClient, true
	}
	return PreferenceUnknown, true
}

// ssl2 sends the SSL 2.0 CLIENT-HELLO; a SERVER-HELLO lists every cipher
// kind both sides share.
func (s *scanner) ssl2(ctx context.Context) *enumeration {
	e := &enumeration{protocol: protocols[0]}
	rep, err := s.probe(ctx, ssl2Hello(), readSSL2Reply)
	if ended(ctx) != nil || errors.Is(err, errUnanswered) {
		return e
	}
	e.detected, e.finished = true, true
	if err == nil && rep.version == versionSSL2 {
		e.ssl2Ciphers = append([]string{}, rep.ssl2Ciphers...)
		e.certs = rep.certs
	}
	return e
}

// fallbackSCSV offers the second-highest supported version, with every
// suite and TLS_FALLBACK_SCSV (RFC 7507): a server that protects against
// downgrades answers inappropriate_fallback. Nil when fewer than two
// versions from SSL 3.0 up are supported, or the answer said neither.
func (s *scanner) fallbackSCSV(ctx context.Context) *bool {
	s.mu.Lock()
	versions := slices.Sorted(slices.Values(s.versions))
	s.mu.Unlock()
	if len(versions) < 2 {
		return nil
	}
	v := versions[len(versions)-2]
	h := hello{version: v, suites: suitesFor(false), serverName: s.serverName, fallback: true}
	rep, err := s.probe(ctx, h.marshal(), func(r io.Reader) (*reply, error) { return readReply(r, readNeeds{}) })
	if s.cutShort(ctx, "fallbackScsv", err) {
		return nil
	}
	var alert *alertError
	switch {
	case err == nil && rep.version == v:
		return ptr(false)
	case errors.As(err, &alert) && alert.Description == alertInappropriateFallback:
		return ptr(true)
	}
	return nil
}

// result assembles the scan's result.
func (s *scanner) result(enums []*enumeration, hs *handshake, f *findings) *Result {
	if f.groups13 != nil {
		enums[len(enums)-1].groups13 = f.groups13
	}
	r := &Result{
		Certificate:     describeCertificate(hs.chain(enums), s.host, s.opts.Roots, s.opts.Now()),
		Vulnerabilities: vulnerabilities(enums, f),
		Advisory:        advisory(enums, hs, f),
		Unfinished:      s.unfinished(enums, hs),
	}
	u := r.Unfinished
	r.Partial = len(u.Protocols)+len(u.CipherSuites)+len(u.Checks) > 0
	r.ClientCertificateRequested, r.ClientCertificateRequired, r.ClientCertificateCANames = clientCertificate(enums, hs)
	r.SupportedGroups = SupportedGroups{TLS10To12: f.legacyGroups, TLS13: f.groups13}
	r.ClientSimulation = f.clients
	if len(f.legacyGroups) == 0 {
		r.SupportedGroups.TLS10To12 = nil
	}
	if r.Certificate.Chain.Length == 0 && !anonymousOnly(enums) {
		why := hs.failure
		if why == "" {
			why = "the handshake was cut short"
		}
		r.Certificate.AuthorizationError = ptr(CertificateNotRead)
		r.Certificate.NotRead = "the certificate could not be read: no full handshake (" + why +
			"), and no version sent it in a form the scan reads"
	}
	r.Certificate.ForwardSecrecy = hs.forwardSecrecy(enums)
	flags := []*bool{&r.Protocols.SSL2, &r.Protocols.SSL3, &r.Protocols.TLS10, &r.Protocols.TLS11, &r.Protocols.TLS12, &r.Protocols.TLS13}
	lists := []*ProtocolSuites{&r.CipherSuites.SSL2, &r.CipherSuites.SSL3, &r.CipherSuites.TLS10,
		&r.CipherSuites.TLS11, &r.CipherSuites.TLS12, &r.CipherSuites.TLS13}
	for i, e := range enums {
		*flags[i] = e.supported()
		names := append([]string{}, e.ssl2Ciphers...)
		for _, id := range e.suites {
			names = append(names, suiteName(id))
		}
		pref := e.preference
		if pref == "" {
			pref = PreferenceUnknown
		}
		*lists[i] = ProtocolSuites{ServerPreference: pref == PreferenceServer, Preference: pref, Suites: names, KeyExchange: e.keyExchange()}
	}
	return r
}

// clientCertificate says whether the server asks for a client
// certificate, whether it requires one, and from which authorities.
func clientCertificate(enums []*enumeration, hs *handshake) (requested, required *bool, caNames []string) {
	requests := []*certRequest{hs.certRequest}
	if hs.tls13 != nil {
		requests = append(requests, hs.tls13.certRequest)
	}
	read := hs.state != nil || hs.tls13 != nil
	for _, e := range enums {
		if e.version >= versionSSL3 && e.supported() && e.detected {
			read = true
			requests = append(requests, e.certRequest)
		}
	}
	for _, cr := range requests {
		if cr != nil {
			return ptr(true), hs.certRequired, cr.caNames
		}
	}
	if !read {
		return nil, nil, []string{}
	}
	return ptr(false), ptr(false), []string{}
}

// anonymousOnly reports whether every suite accepted is anonymous, so
// no certificate is sent.
func anonymousOnly(enums []*enumeration) bool {
	some := false
	for _, e := range enums {
		for _, id := range e.suites {
			if s, _ := SuiteByID(id); !s.anonymous() {
				return false
			}
			some = true
		}
	}
	return some
}

// unfinished lists what the deadline cut short.
func (s *scanner) unfinished(enums []*enumeration, hs *handshake) Unfinished {
	u := Unfinished{Protocols: []string{}, CipherSuites: []string{}}
	for _, e := range enums {
		switch {
		case !e.detected && !e.supported(): // the full handshake may have answered for it
			u.Protocols = append(u.Protocols, e.key)
		case e.supported() && !e.finished:
			u.CipherSuites = append(u.CipherSuites, e.key)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u.Checks = slices.Clone(s.cut)
	if hs.cut {
		u.Checks = append(u.Checks, "ocspStapling")
	}
	slices.Sort(u.Checks)
	if u.Checks == nil {
		u.Checks = []string{}
	}
	return u
}
