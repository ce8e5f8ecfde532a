package tls

import (
	"bytes"
	"context"
	cryptotls "crypto/tls"
	"errors"
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
		r.ids = untested(noLegacyVersion)
		r.tickets = r.ids
		return r
	}
	var wg sync.WaitGroup
	var idsErr, ticketsErr error
	wg.Go(func() { r.ids, idsErr = s.sessionIDResumption(ctx) })
	wg.Go(func() { r.tickets, ticketsErr = s.ticketResumption(ctx) })
	wg.Wait()
	if s.cutShort(ctx, "sessionResumption", idsErr, ticketsErr) {
		for _, sig := range []*Signal{&r.ids, &r.tickets} {
			if !sig.Found() {
				*sig = untested("not finished: the deadline came, or a probe went unanswered")
			}
		}
	}
	return r
}

// fullHandshake completes a handshake with cfg on a new connection and
// returns the ServerHello it got; nil when it failed, with the error.
func (s *scanner) fullHandshake(ctx context.Context, cfg *cryptotls.Config) (*reply, *cryptotls.ConnectionState, error) {
	var sh *reply
	var st cryptotls.ConnectionState
	err := s.withConn(ctx, func(ctx context.Context, conn net.Conn) error {
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
		return nil, nil, err
	}
	return sh, &st, nil
}

// sessionIDResumption resumes by session ID.
func (s *scanner) sessionIDResumption(ctx context.Context) (Signal, error) {
	cfg := s.clientConfig(cryptotls.VersionTLS12)
	cfg.SessionTicketsDisabled = true
	sh, st, err := s.fullHandshake(ctx, cfg)
	switch {
	case sh == nil:
		return untested("no TLS 1.0–1.2 handshake completed"), err
	case len(sh.sessionID) == 0:
		return signal(false, "the server gave no session ID"), nil
	}
	h := hello{version: st.Version, suites: []uint16{st.CipherSuite}, serverName: s.serverName, sessionID: sh.sessionID}
	rep, err := s.probe(ctx, h.marshal(), func(r io.Reader) (*reply, error) { return readReply(r, readNeeds{flight: true}) })
	switch {
	case err == nil && bytes.Equal(rep.sessionID, sh.sessionID) && rep.abbreviated:
		return signal(true, versionName(st.Version)+": a hello carrying the session ID was answered with the same ID and an abbreviated handshake"), nil
	case errors.Is(err, errUnanswered):
		return untested("the hello carrying the session ID went unanswered"), err
	}
	return signal(false, versionName(st.Version)+": a hello carrying the session ID started a new session"), nil
}

// ticketResumption resumes by session ticket.
func (s *scanner) ticketResumption(ctx context.Context) (Signal, error) {
	cfg := s.clientConfig(cryptotls.VersionTLS12)
	cfg.ClientSessionCache = cryptotls.NewLRUClientSessionCache(1)
	sh, st, err := s.fullHandshake(ctx, cfg)
	if sh == nil {
		return untested("no TLS 1.0–1.2 handshake completed"), err
	}
	// crypto/tls does not resume a session whose certificate has
	// expired; the certificate is judged elsewhere, so resume as of a
	// time it was valid.
	notBefore := st.PeerCertificates[0].NotBefore
	cfg.Time = func() time.Time { return notBefore }
	_, again, err := s.fullHandshake(ctx, cfg)
	switch {
	case again != nil && again.DidResume:
		return signal(true, versionName(st.Version)+": a handshake offering the session ticket resumed the session"), nil
	case again == nil:
		return untested("the second handshake failed"), err
	}
	return signal(false, versionName(st.Version)+": no session resumed by ticket (none was issued, or it was not accepted)"), nil
}
