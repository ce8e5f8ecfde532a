package tls

import (
	"bytes"
	"context"
	cryptotls "crypto/tls"
	"net"
	"slices"

	"github.com/sitediag/sitediag/internal/tracing"
)

// Renegotiation is the verdict on client-initiated renegotiation: a
// server that renegotiates whenever a client asks lets one client make
// it do full handshakes without end (a denial of service), and without
// RFC 5746 it is open to CVE-2009-3555's prefix injection as well.
type Renegotiation struct {
	Finding
	// ClientInitiated is true when the server renegotiated at the
	// client's request, false when it refused; null when it was not
	// tested (NotTestedReason says why: no TLS 1.0–1.2 session could be
	// completed in a suite whose records the check can protect, SSL 3.0
	// only, or no version below TLS 1.3).
	ClientInitiated *bool `json:"clientInitiated"`
}

// renegotiationSuites are the suites the renegotiation probe offers:
// every one crypto/tls implements but RC4, whose stream state it would
// have to carry on.
func renegotiationSuites() []uint16 {
	var out []uint16
	for _, cs := range slices.Concat(cryptotls.CipherSuites(), cryptotls.InsecureCipherSuites()) {
		if _, err := cipherOf(cs.ID); err == nil && !slices.Contains(cs.SupportedVersions, cryptotls.VersionTLS13) {
			out = append(out, cs.ID)
		}
	}
	return out
}

// renegotiation completes a TLS 1.0–1.2 handshake with crypto/tls at the
// newest of those versions the server has, in whatever suite it picks
// (AES-GCM, ChaCha20-Poly1305, AES or 3DES CBC), then sends a new
// ClientHello inside the connection, encrypted with the connection's
// keys (from its key log), as `openssl s_client` does on "R" and
// testssl.sh tests. A ServerHello in answer means the server
// renegotiates at a client's request; an alert (no_renegotiation) or
// the connection's end means it refuses.
func (s *scanner) renegotiation(ctx context.Context) Renegotiation {
	r := Renegotiation{Finding: Finding{Evidence: []string{}}}
	v := s.legacyVersion()
	switch {
	case v == 0 && s.supports(versionSSL3):
		r.notTested("SSLv3 only: crypto/tls, which completes the session, has no SSL 3.0")
		return r
	case v == 0:
		r.notTested("no version from SSL 3.0 to TLS 1.2")
		return r
	}
	var why string
	err := s.withConn(ctx, func(ctx context.Context, conn net.Conn) error {
		rc := &recordingConn{Conn: conn, recordWrites: true}
		var keyLog bytes.Buffer
		cfg := s.clientConfig(v)
		cfg.MinVersion, cfg.CipherSuites, cfg.KeyLogWriter = v, renegotiationSuites(), &keyLog
		tc := cryptotls.Client(rc, cfg)
		if err := tracing.Handshake(ctx, tc); err != nil {
			why = "no " + versionName(v) + " session in a suite the check can protect (AES-GCM, ChaCha20-Poly1305, AES or 3DES CBC): " +
				classify(err, s.opts.ProbeTimeout).reason
			return err
		}
		sh, err := rc.serverHello()
		if err != nil {
			return err
		}
		st := tc.ConnectionState()
		keys, err := newRecordKeys(keyLog.String(), st.Version, st.CipherSuite, sh.random,
			finishedRecord(rc.written.Bytes()), finishedRecord(rc.read.Bytes()))
		if err != nil {
			why = "the session's record protection could not be derived: " + err.Error()
			return err
		}
		h := hello{version: st.Version, suites: suitesFor(false), serverName: s.serverName, renegotiating: true}
		if sh.renegotiationInfo {
			h.verifyData = st.TLSUnique // the client's Finished of this full handshake
		}
		if _, err := conn.Write(keys.seal(recordHandshake, h.marshal()[5:])); err != nil {
			return err
		}
		accepted := keys.renegotiated(conn)
		r.ClientInitiated = &accepted
		r.tested(accepted)
		if accepted {
			r.Evidence = []string{renegotiationEvidence(versionName(st.Version)+" "+suiteName(st.CipherSuite), sh.renegotiationInfo)}
		}
		return nil
	})
	switch {
	case s.cutShort(ctx, "renegotiation", err):
		r.ClientInitiated = nil
		r.notTested("not finished: the deadline came, or the probe went unanswered")
	case r.ClientInitiated == nil && why != "":
		r.notTested(why)
	case r.ClientInitiated == nil:
		r.notTested(classify(err, s.opts.ProbeTimeout).reason)
	}
	return r
}

// finishedRecord returns the first handshake record after the
// ChangeCipherSpec in a stream of records: the encrypted Finished.
func finishedRecord(stream []byte) []byte {
	r := bytes.NewReader(stream)
	afterCCS := false
	for {
		typ, fragment, err := readRecord(r)
		switch {
		case err != nil:
			return nil
		case typ == recordChangeCipherSpec:
			afterCCS = true
		case afterCCS && typ == recordHandshake:
			return fragment
		}
	}
}

// renegotiationEvidence words an accepted client-initiated
// renegotiation in session (version and suite).
func renegotiationEvidence(session string, secure bool) string {
	if secure {
		return session + ": client-initiated renegotiation accepted (secure, RFC 5746): a client can make the server redo full handshakes (DoS)"
	}
	return session + ": client-initiated renegotiation accepted without RFC 5746: insecure (CVE-2009-3555), and a DoS exposure"
}

// renegotiated reads the server's next record and reports whether it is
// a ServerHello.
func (k *recordKeys) renegotiated(conn net.Conn) bool {
	typ, fragment, err := readRecord(conn)
	if err != nil || typ != recordHandshake {
		return false
	}
	plain, err := k.open(typ, fragment)
	return err == nil && len(plain) > 0 && plain[0] == typeServerHello
}

// supports reports whether v's first hello was accepted.
func (s *scanner) supports(v uint16) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.versions, v)
}
