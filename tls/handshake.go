package tls

import (
	"context"
	cryptotls "crypto/tls"
	"crypto/x509"
	"net"
	"slices"
)

// handshake is the outcome of the one full crypto/tls handshake.
type handshake struct {
	// state is nil when the handshake failed.
	state *cryptotls.ConnectionState
}

// handshake completes one handshake with crypto/tls, offering every
// version and suite it implements, without verifying the certificate:
// describeCertificate judges it afterwards.
func (s *scanner) handshake(ctx context.Context) *handshake {
	var suites []uint16
	for _, cs := range slices.Concat(cryptotls.CipherSuites(), cryptotls.InsecureCipherSuites()) {
		suites = append(suites, cs.ID)
	}
	hs := &handshake{}
	s.withConn(ctx, func(ctx context.Context, conn net.Conn) error {
		tc := cryptotls.Client(conn, &cryptotls.Config{
			ServerName:         s.serverName,
			InsecureSkipVerify: true, // verified by hand; an invalid certificate is a finding
			MinVersion:         cryptotls.VersionTLS10,
			MaxVersion:         cryptotls.VersionTLS13,
			CipherSuites:       suites,
		})
		if err := tc.HandshakeContext(ctx); err != nil {
			return err
		}
		st := tc.ConnectionState()
		hs.state = &st
		return nil
	})
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

// forwardSecrecy describes the full handshake's key exchange.
func (h *handshake) forwardSecrecy() ForwardSecrecy {
	if h.state == nil {
		return ForwardSecrecy{}
	}
	fs := ForwardSecrecy{
		Protocol:         ptr(versionName(h.state.Version)),
		NegotiatedCipher: ptr(suiteName(h.state.CipherSuite)),
	}
	if h.state.CurveID == 0 {
		return fs // RSA key exchange: no forward secrecy
	}
	name := h.state.CurveID.String()
	fs.EphemeralKeyName = &name
	switch h.state.CurveID {
	case cryptotls.X25519:
		fs.EphemeralKeyType, fs.EphemeralKeySize = ptr("ECDH"), ptr(253)
	case cryptotls.CurveP256:
		fs.EphemeralKeyType, fs.EphemeralKeySize = ptr("ECDH"), ptr(256)
	case cryptotls.CurveP384:
		fs.EphemeralKeyType, fs.EphemeralKeySize = ptr("ECDH"), ptr(384)
	case cryptotls.CurveP521:
		fs.EphemeralKeyType, fs.EphemeralKeySize = ptr("ECDH"), ptr(521)
	default:
		fs.EphemeralKeyType = ptr("KEM") // hybrid post-quantum groups
	}
	return fs
}
