package tls

import (
	"context"
	cryptotls "crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"net"
	"slices"
	"time"

	"golang.org/x/crypto/cryptobyte"

	"github.com/sitediag/sitediag/internal/tracing"
)

// handshake is the outcome of the one full crypto/tls handshake, and of
// the TLS 1.3 flight read by hand when crypto/tls could not complete
// one.
type handshake struct {
	// state is nil when the handshake failed.
	state *cryptotls.ConnectionState
	// cut is true when the deadline came before it completed.
	cut bool
	// certRequest is set when the server asked for a client
	// certificate; certRequired says whether it went on without one:
	// false when it did, true when it refused, nil when not told.
	certRequest  *certRequest
	certRequired *bool
	// tls13 is the flight read by readTLS13, nil when not read.
	tls13 *tls13Flight
	// failure is why the handshake failed, for a certificate not read.
	failure string
}

// clientCertWait bounds how long, after a TLS 1.3 handshake in which
// the server asked for a certificate and got none, the scan waits for
// the alert of a server that requires one, or the session ticket of one
// that goes on: the server judges the client's empty Certificate only
// after crypto/tls has finished.
const clientCertWait = time.Second

// clientConfig is a crypto/tls client configuration offering every
// version from TLS 1.0 to maxVersion and every suite crypto/tls
// implements, without verifying the certificate: describeCertificate
// judges it, and an invalid one is a finding.
func (s *scanner) clientConfig(maxVersion uint16) *cryptotls.Config {
	var suites []uint16
	for _, cs := range slices.Concat(cryptotls.CipherSuites(), cryptotls.InsecureCipherSuites()) {
		suites = append(suites, cs.ID)
	}
	return &cryptotls.Config{
		ServerName:         s.serverName,
		InsecureSkipVerify: true,
		MinVersion:         cryptotls.VersionTLS10,
		MaxVersion:         maxVersion,
		CipherSuites:       suites,
	}
}

// handshake completes one handshake with crypto/tls, offering every
// version and suite it implements.
// A server that asks for a client certificate gets none; one that
// requires it then refuses, which certRequired records.
func (s *scanner) handshake(ctx context.Context) *handshake {
	hs := &handshake{}
	err := s.withConn(ctx, func(ctx context.Context, conn net.Conn) error {
		cfg := s.clientConfig(cryptotls.VersionTLS13)
		tickets := ticketSignal(make(chan struct{}, 1))
		cfg.ClientSessionCache = tickets
		cfg.GetClientCertificate = func(cri *cryptotls.CertificateRequestInfo) (*cryptotls.Certificate, error) {
			cr := &certRequest{caNames: distinguishedNames(lengthPrefixed(cri.AcceptableCAs))}
			hs.certRequest = cr
			return &cryptotls.Certificate{}, nil
		}
		tc := cryptotls.Client(conn, cfg)
		if err := tracing.Handshake(ctx, tc); err != nil {
			return err
		}
		st := tc.ConnectionState()
		hs.state = &st
		if hs.certRequest != nil {
			hs.certRequired = ptr(false)
			if st.Version == cryptotls.VersionTLS13 {
				hs.certRequired = ptr(refusedAfterHandshake(tc, tickets))
			}
		}
		return nil
	})
	if hs.state == nil && hs.certRequest != nil && remoteAlert(err) {
		hs.certRequired = ptr(true)
	}
	if hs.state == nil {
		hs.failure = classify(err, s.opts.ProbeTimeout).reason
		s.detecting.Wait()
		if s.supports(versionTLS13) {
			hs.tls13, _ = s.readTLS13(ctx)
		}
	}
	hs.cut = hs.state == nil && ended(ctx) != nil
	return hs
}

// refusedAfterHandshake reports whether a TLS 1.3 server that asked for
// a client certificate, and got none, refuses the connection: its alert
// comes after crypto/tls has finished. A server that goes on sends a
// session ticket, which tickets signals; one that sends neither is
// waited for up to clientCertWait.
func refusedAfterHandshake(tc *cryptotls.Conn, tickets ticketSignal) bool {
	read := make(chan error, 1)
	go func() {
		_, err := tc.Read(make([]byte, 1))
		read <- err
	}()
	timer := time.NewTimer(clientCertWait)
	defer timer.Stop()
	select {
	case err := <-read:
		return remoteAlert(err)
	case <-tickets:
	case <-timer.C:
	}
	tc.SetReadDeadline(time.Unix(1, 0)) // ends the read
	return remoteAlert(<-read)
}

// ticketSignal is a session cache that keeps nothing: it signals that
// the server sent a session ticket.
type ticketSignal chan struct{}

// Get finds no session.
func (ticketSignal) Get(string) (*cryptotls.ClientSessionState, bool) { return nil, false }

// Put signals a ticket.
func (t ticketSignal) Put(string, *cryptotls.ClientSessionState) {
	select {
	case t <- struct{}{}:
	default:
	}
}

// remoteAlert reports whether err is crypto/tls's for an alert the
// server sent.
func remoteAlert(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "remote error"
}

// lengthPrefixed turns DER names into the list TLS sends, each with
// its two-byte length.
func lengthPrefixed(ders [][]byte) cryptobyte.String {
	var out []byte
	for _, der := range ders {
		out = binary.BigEndian.AppendUint16(out, uint16(len(der)))
		out = append(out, der...)
	}
	return out
}

// chain returns the certificates of the full handshake, or else those
// of the TLS 1.3 flight read by hand, or else the chain the newest
// version sent in clear.
func (h *handshake) chain(enums []*enumeration) []*x509.Certificate {
	if h.state != nil {
		return h.state.PeerCertificates
	}
	sent := [][][]byte{}
	if h.tls13 != nil {
		sent = append(sent, h.tls13.certs)
	}
	for _, e := range slices.Backward(enums) {
		sent = append(sent, e.certs)
	}
	for _, certs := range sent {
		var chain []*x509.Certificate
		for _, der := range certs {
			c, err := x509.ParseCertificate(der)
			if err != nil {
				break
			}
			chain = append(chain, c)
		}
		if len(chain) > 0 {
			return chain
		}
	}
	return nil
}

// forwardSecrecy describes the key exchange of the full handshake.
// When crypto/tls could not complete one (it has no DHE, no SSL 3.0),
// the newest version's first pick from the raw probes stands in: the
// negotiated suite and the group its ServerKeyExchange named.
func (h *handshake) forwardSecrecy(enums []*enumeration) ForwardSecrecy {
	if h.state != nil {
		fs := ForwardSecrecy{
			Protocol:         ptr(versionName(h.state.Version)),
			NegotiatedCipher: ptr(suiteName(h.state.CipherSuite)),
		}
		if h.state.CurveID != 0 { // else RSA key exchange: no forward secrecy
			fs.setGroup(groupByID(uint16(h.state.CurveID)))
		}
		return fs
	}
	for _, e := range slices.Backward(enums) {
		if len(e.suites) == 0 {
			continue
		}
		id := e.suites[0]
		fs := ForwardSecrecy{Protocol: ptr(e.name), NegotiatedCipher: ptr(suiteName(id))}
		if g, ok := e.groups[id]; ok {
			fs.setGroup(g)
		} else if s, _ := SuiteByID(id); s.forwardSecret() {
			fs.EphemeralKeyType = ptr("unknown")
		}
		return fs
	}
	return ForwardSecrecy{}
}

// setGroup records g as the ephemeral key.
func (fs *ForwardSecrecy) setGroup(g Group) {
	fs.EphemeralKeyType, fs.EphemeralKeyName = ptr(g.Type), ptr(g.Name)
	if g.Bits > 0 {
		fs.EphemeralKeySize = ptr(g.Bits)
	}
}
