package tls

import (
	"bytes"
	"context"
	cryptotls "crypto/tls"
	"io"
	"net"
	"sync"
	"time"

	"github.com/sitediag/sitediag/internal/tracing"
)

// resumption is what the session resumption checks found.
type resumption struct {
	ids, tickets Signal
}

// resumption tests both ways to resume a TLS 1.0–1.2 session, each
// after a full handshake with crypto/tls: by session ID (RFC 5246), a
// raw hello carrying the ID the server gave, resumed when the server
// answers with the same ID and goes straight to ChangeCipherSpec; by
// session ticket (RFC 5077), a second
// crypto/tls handshake offering the ticket, resumed when crypto/tls
// says so. TLS 1.3 is not tested: its tickets come after the
// handshake, when the server chooses to send them.
func (s *scanner) resumption(ctx context.Context) resumption {
	var r resumption
	if s.legacyVersion() == 0 {
		r.ids.Details = "not tested: no version from TLS 1.0 to TLS 1.2"
		r.tickets.Details = r.ids.Details
		return r
	}
	var wg sync.WaitGroup
	wg.Go(func() { r.ids = s.sessionIDResumption(ctx) })
	wg.Go(func() { r.tickets = s.ticketResumption(ctx) })
	wg.Wait()
	if s.cutShort(ctx, "sessionResumption") {
		for _, sig := range []*Signal{&r.ids, &r.tickets} {
			if !sig.Supported {
				sig.Details = "not finished by the deadline"
			}
		}
	}
	return r
}

// fullHandshake completes a handshake with cfg on a new connection and
// returns the ServerHello it got; nil when it failed.
func (s *scanner) fullHandshake(ctx context.Context, cfg *cryptotls.Config) (*reply, *cryptotls.ConnectionState) {
	var sh *reply
	var st cryptotls.ConnectionState
	s.withConn(ctx, func(ctx context.Context, conn net.Conn) error {
		rc := &recordingConn{Conn: conn}
		tc := cryptotls.Client(rc, cfg)
		if err := tracing.Handshake(ctx, tc); err != nil {
			return err
		}
		st = tc.ConnectionState()
		tc.Close() // close_notify: a server forgets a session whose connection ended without it
		var err error
		sh, err = rc.serverHello()
		return err
	})
	if sh == nil {
		return nil, nil
	}
	return sh, &st
}

// sessionIDResumption resumes by session ID.
func (s *scanner) sessionIDResumption(ctx context.Context) Signal {
	cfg := s.clientConfig(cryptotls.VersionTLS12)
	cfg.SessionTicketsDisabled = true
	sh, st := s.fullHandshake(ctx, cfg)
	switch {
	case sh == nil:
		return Signal{Details: "not tested: no TLS 1.0–1.2 handshake completed"}
	case len(sh.sessionID) == 0:
		return Signal{Details: "the server gave no session ID"}
	}
	h := hello{version: st.Version, suites: []uint16{st.CipherSuite}, serverName: s.serverName, sessionID: sh.sessionID}
	rep, err := s.probe(ctx, h.marshal(), func(r io.Reader) (*reply, error) { return readReply(r, readNeeds{flight: true}) })
	if err == nil && bytes.Equal(rep.sessionID, sh.sessionID) && rep.abbreviated {
		return Signal{Supported: true, Details: versionName(st.Version) + ": a hello carrying the session ID was answered with the same ID and an abbreviated handshake"}
	}
	return Signal{Details: versionName(st.Version) + ": a hello carrying the session ID started a new session"}
}

// ticketResumption resumes by session ticket.
func (s *scanner) ticketResumption(ctx context.Context) Signal {
	cfg := s.clientConfig(cryptotls.VersionTLS12)
	cfg.ClientSessionCache = cryptotls.NewLRUClientSessionCache(1)
	sh, st := s.fullHandshake(ctx, cfg)
	if sh == nil {
		return Signal{Details: "not tested: no TLS 1.0–1.2 handshake completed"}
	}
	// crypto/tls does not resume a session whose certificate has
	// expired; the certificate is judged elsewhere, so resume as of a
	// time it was valid.
	notBefore := st.PeerCertificates[0].NotBefore
	cfg.Time = func() time.Time { return notBefore }
	_, again := s.fullHandshake(ctx, cfg)
	switch {
	case again != nil && again.DidResume:
		return Signal{Supported: true, Details: versionName(st.Version) + ": a handshake offering the session ticket resumed the session"}
	case again == nil:
		return Signal{Details: "not tested: the second handshake failed"}
	}
	return Signal{Details: versionName(st.Version) + ": no session resumed by ticket (none was issued, or it was not accepted)"}
}
