package tls

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/binary"
	"errors"
	"hash"
	"io"
	"net"

	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/cryptobyte"
)

// tls13Flight is what the server's encrypted TLS 1.3 flight says.
type tls13Flight struct {
	suite uint16
	// certs is the Certificate message's chain, leaf first.
	certs [][]byte
	// certRequest is set when the server asked for a client
	// certificate.
	certRequest *certRequest
}

// tls13AEADSuites are the TLS 1.3 suites whose records the reader
// decrypts: AES-GCM, ChaCha20-Poly1305 and AES-CCM (RFC 8446).
var tls13AEADSuites = []uint16{0x1301, 0x1302, 0x1303, 0x1304, 0x1305}

// errNoFlight means the server did not answer with a TLS 1.3 flight
// the reader could decrypt.
var errNoFlight = errors.New("tls: no TLS 1.3 flight could be read")

// readTLS13 does the client's half of a TLS 1.3 handshake up to the
// server's Certificate: a hello with X25519, P-256 and P-384 key
// shares offering the AEAD suites, then the handshake keys (RFC 8446
// §7.1) decrypt the server's flight, whatever the suite, CCM included,
// which crypto/tls does not implement. It reads the certificate of a
// server crypto/tls cannot complete a handshake with, and its
// CertificateRequest.
func (s *scanner) readTLS13(ctx context.Context) (*tls13Flight, error) {
	curves := []struct {
		id    uint16
		curve ecdh.Curve
	}{{29, ecdh.X25519()}, {23, ecdh.P256()}, {24, ecdh.P384()}}
	keys := map[uint16]*ecdh.PrivateKey{}
	h := hello{version: versionTLS13, suites: tls13AEADSuites, serverName: s.serverName}
	for _, c := range curves {
		k, err := c.curve.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		keys[c.id] = k
		h.groups = append(h.groups, c.id)
		h.shares = append(h.shares, keyShare{c.id, k.PublicKey().Bytes()})
	}
	clientHello := h.marshal()
	var flight *tls13Flight
	err := s.withConn(ctx, func(_ context.Context, conn net.Conn) error {
		if _, err := conn.Write(clientHello); err != nil {
			return err
		}
		var err error
		flight, err = readFlight13(conn, clientHello[5:], keys)
		return err
	})
	return flight, err
}

// readFlight13 reads the ServerHello and decrypts the flight after it
// with the keys of the client's shares.
func readFlight13(r io.Reader, clientHello []byte, keys map[uint16]*ecdh.PrivateKey) (*tls13Flight, error) {
	r = io.LimitReader(r, maxReply)
	serverHello, err := readHandshakeMessage(r)
	if err != nil {
		return nil, err
	}
	if len(serverHello) < 4 || serverHello[0] != typeServerHello {
		return nil, errMalformed
	}
	sh, err := parseServerHello(serverHello[4:])
	if err != nil {
		return nil, err
	}
	if sh.retry || sh.version != versionTLS13 || sh.group == nil {
		return nil, errNoFlight
	}
	var priv *ecdh.PrivateKey
	for id, k := range keys {
		if groupByID(id).Name == sh.group.Name {
			priv = k
		}
	}
	if priv == nil {
		return nil, errNoFlight
	}
	peer, err := priv.Curve().NewPublicKey(sh.keyShare)
	if err != nil {
		return nil, err
	}
	shared, err := priv.ECDH(peer)
	if err != nil {
		return nil, err
	}
	newHash, keyLen := sha256.New, 16
	switch sh.suite {
	case 0x1302:
		newHash, keyLen = sha512.New384, 32
	case 0x1303:
		keyLen = 32
	}
	transcript := newHash()
	transcript.Write(clientHello)
	transcript.Write(serverHello)
	secret, err := serverHandshakeSecret(newHash, shared, transcript.Sum(nil))
	if err != nil {
		return nil, err
	}
	key, err1 := expandLabel(newHash, secret, "key", nil, keyLen)
	iv, err2 := expandLabel(newHash, secret, "iv", nil, 12)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	aead, err := tls13AEAD(sh.suite, key)
	if err != nil {
		return nil, err
	}
	flight := &tls13Flight{suite: sh.suite}
	var hs []byte
	for seq := uint64(0); ; {
		typ, fragment, err := readRecord(r)
		switch {
		case err != nil:
			return nil, err
		case typ == recordChangeCipherSpec:
			continue
		case typ == recordAlert:
			return nil, &alertError{Description: fragment[len(fragment)-1]}
		case typ != recordApplicationData:
			return nil, errMalformed
		}
		nonce := append([]byte{}, iv...)
		for i, b := range binary.BigEndian.AppendUint64(nil, seq) {
			nonce[4+i] ^= b
		}
		seq++
		header := appendRecord(nil, typ, versionTLS12, nil)
		binary.BigEndian.PutUint16(header[3:], uint16(len(fragment)))
		plain, err := aead.Open(nil, nonce, fragment, header)
		if err != nil {
			return nil, err
		}
		plain = bytes.TrimRight(plain, "\x00")
		if len(plain) == 0 || plain[len(plain)-1] != recordHandshake {
			return nil, errMalformed
		}
		hs = append(hs, plain[:len(plain)-1]...)
		for {
			msgType, body, rest, ok := nextMessage(hs)
			if !ok {
				break
			}
			hs = rest
			switch msgType {
			case typeCertificateRequest:
				flight.certRequest = parseCertRequest13(body)
			case typeCertificate:
				flight.certs, err = parseCertificates13(body)
				return flight, err
			}
		}
	}
}

// recordApplicationData is TLS 1.3's outer type of every encrypted
// record.
const recordApplicationData = 23

// readHandshakeMessage reads records until one whole handshake message
// has come and returns it, header included.
func readHandshakeMessage(r io.Reader) ([]byte, error) {
	var hs []byte
	for {
		typ, fragment, err := readRecord(r)
		switch {
		case err != nil:
			return nil, err
		case typ == recordAlert && len(fragment) == 2:
			return nil, &alertError{Description: fragment[1]}
		case typ != recordHandshake:
			return nil, errMalformed
		}
		hs = append(hs, fragment...)
		if _, _, rest, ok := nextMessage(hs); ok {
			return hs[:len(hs)-len(rest)], nil
		}
	}
}

// serverHandshakeSecret runs RFC 8446 §7.1's key schedule up to
// server_handshake_traffic_secret, without a PSK.
func serverHandshakeSecret(newHash func() hash.Hash, shared, transcript []byte) ([]byte, error) {
	zeros := make([]byte, newHash().Size())
	early, err := hkdf.Extract(newHash, zeros, nil)
	if err != nil {
		return nil, err
	}
	empty := newHash().Sum(nil)
	derived, err := expandLabel(newHash, early, "derived", empty, len(zeros))
	if err != nil {
		return nil, err
	}
	handshake, err := hkdf.Extract(newHash, shared, derived)
	if err != nil {
		return nil, err
	}
	return expandLabel(newHash, handshake, "s hs traffic", transcript, len(zeros))
}

// expandLabel is HKDF-Expand-Label (RFC 8446 §7.1).
func expandLabel(newHash func() hash.Hash, secret []byte, label string, context []byte, n int) ([]byte, error) {
	var b cryptobyte.Builder
	b.AddUint16(uint16(n))
	b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte("tls13 " + label)) })
	b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(context) })
	return hkdf.Expand(newHash, secret, string(b.BytesOrPanic()), n)
}

// tls13AEAD is the record protection of a TLS 1.3 suite.
func tls13AEAD(suite uint16, key []byte) (cipher.AEAD, error) {
	if suite == 0x1303 {
		return chacha20poly1305.New(key)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	switch suite {
	case 0x1304:
		return &ccm{block: block, tagLen: 16}, nil
	case 0x1305:
		return &ccm{block: block, tagLen: 8}, nil
	}
	return cipher.NewGCM(block)
}

// parseCertificates13 parses a TLS 1.3 Certificate message: a request
// context, then entries of a certificate and its extensions.
func parseCertificates13(body []byte) ([][]byte, error) {
	s := cryptobyte.String(body)
	var context, list cryptobyte.String
	if !s.ReadUint8LengthPrefixed(&context) || !s.ReadUint24LengthPrefixed(&list) {
		return nil, errMalformed
	}
	var certs [][]byte
	for !list.Empty() {
		var der, exts cryptobyte.String
		if !list.ReadUint24LengthPrefixed(&der) || !list.ReadUint16LengthPrefixed(&exts) {
			return nil, errMalformed
		}
		certs = append(certs, der)
	}
	return certs, nil
}

// extCertificateAuthorities is TLS 1.3's certificate_authorities.
const extCertificateAuthorities = 47

// parseCertRequest13 parses a TLS 1.3 CertificateRequest: a context,
// then extensions, certificate_authorities among them.
func parseCertRequest13(body []byte) *certRequest {
	s := cryptobyte.String(body)
	var context, exts cryptobyte.String
	cr := &certRequest{caNames: []string{}}
	if !s.ReadUint8LengthPrefixed(&context) || !s.ReadUint16LengthPrefixed(&exts) {
		return cr
	}
	for !exts.Empty() {
		var typ uint16
		var data cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&data) {
			break
		}
		if typ == extCertificateAuthorities {
			var names cryptobyte.String
			if data.ReadUint16LengthPrefixed(&names) {
				cr.caNames = distinguishedNames(names)
			}
		}
	}
	return cr
}

// parseCertRequest12 parses an SSL 3.0–TLS 1.2 CertificateRequest:
// certificate types, signature algorithms (TLS 1.2), then the
// authorities.
func parseCertRequest12(body []byte, version uint16) *certRequest {
	s := cryptobyte.String(body)
	var types, algs, names cryptobyte.String
	cr := &certRequest{caNames: []string{}}
	if !s.ReadUint8LengthPrefixed(&types) {
		return cr
	}
	if version >= versionTLS12 && !s.ReadUint16LengthPrefixed(&algs) {
		return cr
	}
	if s.ReadUint16LengthPrefixed(&names) {
		cr.caNames = distinguishedNames(names)
	}
	return cr
}

// distinguishedNames renders a list of DER distinguished names in RFC
// 4514 form.
func distinguishedNames(list cryptobyte.String) []string {
	out := []string{}
	for !list.Empty() {
		var der cryptobyte.String
		if !list.ReadUint16LengthPrefixed(&der) {
			break
		}
		var rdn pkix.RDNSequence
		if _, err := asn1.Unmarshal(der, &rdn); err != nil {
			continue
		}
		var name pkix.Name
		name.FillFromRDNSequence(&rdn)
		out = append(out, name.String())
	}
	return out
}
