package tls

import (
	"context"
	cryptotls "crypto/tls"
	"crypto/x509"
	"net"
	"slices"

	"github.com/sitediag/sitediag/internal/tracing"
)

// handshake is the outcome of the one full crypto/tls handshake.
type handshake struct {
	// state is nil when the handshake failed.
	state *cryptotls.ConnectionState
	// cut is true when the deadline came before it completed.
	cut bool
}

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
func (s *scanner) handshake(ctx context.Context) *handshake {
	hs := &handshake{}
	s.withConn(ctx, func(ctx context.Context, conn net.Conn) error {
		tc := cryptotls.Client(conn, s.clientConfig(cryptotls.VersionTLS13))
		if err := tracing.Handshake(ctx, tc); err != nil {
			return err
		}
		st := tc.ConnectionState()
		hs.state = &st
		return nil
	})
	hs.cut = hs.state == nil && ended(ctx) != nil
	return hs
}

// chain returns the certificates of the full handshake, or else the
// chain the newest version sent in clear.
func (h *handshake) chain(enums []*enumeration) []*x509.Certificate {
	if h.state != nil {
		return h.state.PeerCertificates
	}
	for _, e := range slices.Backward(enums) {
		var chain []*x509.Certificate
		for _, der := range e.certs {
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
