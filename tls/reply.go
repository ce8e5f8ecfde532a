package tls

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"

	"golang.org/x/crypto/cryptobyte"
)

// maxReply bounds what one probe reads from a server.
const maxReply = 256 << 10

// helloRetryRandom is the ServerHello.random of a HelloRetryRequest
// (RFC 8446 §4.1.3).
var helloRetryRandom = []byte{
	0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
	0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C,
}

// errMalformed means the server answered with bytes that are not what
// the protocol allows at that point.
var errMalformed = errors.New("tls: malformed server reply")

// errTLSRecord means the server answered an SSL 2.0 hello with a TLS
// record: it does not speak SSL 2.0, and what it says in TLS is for the
// TLS probes to judge.
var errTLSRecord = errors.New("tls: the server answered an SSL 2.0 hello in TLS")

// errHTTP means the server answered a hello with an HTTP response: the
// port speaks plain HTTP.
var errHTTP = errors.New("tls: the server answered with HTTP")

// alertError is a TLS alert the server answered a hello with.
type alertError struct {
	// Description is the alert's code (40 handshake_failure, 70
	// protocol_version, 86 inappropriate_fallback, …).
	Description uint8
}

func (e *alertError) Error() string { return fmt.Sprintf("tls: server sent alert %d", e.Description) }

// Alerts the scan branches on.
const alertInappropriateFallback = 86

// reply is what a server answered a hello with, as far as it was read.
type reply struct {
	// version is the negotiated version: supported_versions when the
	// server sent it, else ServerHello.legacy_version.
	version uint16
	// suite is the chosen cipher suite.
	suite uint16
	// compression is the chosen compression method (1 is DEFLATE).
	compression uint8
	// renegotiationInfo is true when the ServerHello carried the
	// renegotiation_info extension (RFC 5746).
	renegotiationInfo bool
	// retry is true for a HelloRetryRequest.
	retry bool
	// random and sessionID are the ServerHello's.
	random, sessionID []byte
	// heartbeat is true when the ServerHello carried the heartbeat
	// extension (RFC 6520).
	heartbeat bool
	// abbreviated is true when ChangeCipherSpec followed the ServerHello
	// (SSL 3.0–TLS 1.2): the server resumed a session.
	abbreviated bool
	// certs is the certificate chain of a Certificate message (SSL 3.0 to
	// TLS 1.2, and SSL 2.0), leaf first, when it was read.
	certs [][]byte
	// group is the key-exchange group: from the ServerKeyExchange of an
	// ECDHE or DHE suite, or the key_share of a TLS 1.3 ServerHello or
	// HelloRetryRequest; nil when none was read.
	group *Group
	// ssl2Ciphers are the cipher kinds of an SSL 2.0 SERVER-HELLO.
	ssl2Ciphers []string
	// keyShare is the server's key_exchange of a TLS 1.3 ServerHello.
	keyShare []byte
	// certRequest is the CertificateRequest of an SSL 3.0–TLS 1.2
	// flight read through ServerHelloDone; nil when none came.
	certRequest *certRequest
}

// certRequest is what a CertificateRequest asks for.
type certRequest struct {
	// caNames are the distinguished names of the certificate
	// authorities it accepts, in RFC 4514 form; empty for any.
	caNames []string
}

// readNeeds says how far to read past the ServerHello.
type readNeeds struct {
	// certificate reads the Certificate message.
	certificate bool
	// flight reads on to ServerHelloDone (SSL 3.0–TLS 1.2), so the
	// connection can go on with the client's next flight.
	flight bool
}

// readReply reads a server's answer to an SSL 3.0–TLS 1.3 hello: records
// until the ServerHello, and past it the Certificate when asked and the
// ServerKeyExchange of a finite-field DHE suite. A refusal is an error:
// *alertError, io.EOF, or a network error.
func readReply(r io.Reader, needs readNeeds) (*reply, error) {
	r = io.LimitReader(r, maxReply)
	var hs []byte // handshake bytes not yet parsed
	var rep *reply
	for {
		typ, fragment, err := readRecord(r)
		if err != nil {
			if rep != nil {
				return rep, nil // what came before is still an answer
			}
			return nil, err
		}
		switch typ {
		case recordAlert:
			if rep != nil {
				return rep, nil
			}
			if len(fragment) < 2 {
				return nil, errMalformed
			}
			return nil, &alertError{Description: fragment[1]}
		case recordHandshake:
		default:
			if rep != nil { // e.g. ChangeCipherSpec after a TLS 1.3 ServerHello, or a resumed session's
				rep.abbreviated = typ == recordChangeCipherSpec && rep.version < versionTLS13
				return rep, nil
			}
			return nil, errMalformed
		}
		hs = append(hs, fragment...)
		for {
			msgType, body, rest, ok := nextMessage(hs)
			if !ok {
				break
			}
			hs = rest
			done, err := handleMessage(&rep, msgType, body, needs)
			if err != nil {
				return nil, err
			}
			if done {
				return rep, nil
			}
		}
	}
}

// nextMessage splits the first whole handshake message off hs: its
// type and body, and what follows; ok is false until it has all come.
func nextMessage(hs []byte) (msgType uint8, body, rest []byte, ok bool) {
	if len(hs) < 4 {
		return 0, nil, hs, false
	}
	n := int(hs[1])<<16 | int(hs[2])<<8 | int(hs[3])
	if len(hs) < 4+n {
		return 0, nil, hs, false
	}
	return hs[0], hs[4 : 4+n], hs[4+n:], true
}

// handleMessage folds one handshake message into *rep and reports
// whether reading can stop.
func handleMessage(rep **reply, msgType uint8, body []byte, needs readNeeds) (bool, error) {
	if *rep == nil {
		if msgType != typeServerHello {
			return false, errMalformed
		}
		r, err := parseServerHello(body)
		if err != nil {
			return false, err
		}
		*rep = r
		if r.retry || r.version >= versionTLS13 {
			return true, nil // the rest is encrypted
		}
		return !needs.certificate && !needs.flight && !ephemeralSuite(r.suite), nil
	}
	r := *rep
	switch msgType {
	case typeCertificate:
		certs, err := parseCertificates(body)
		if err != nil {
			return false, err
		}
		r.certs = certs
		return !ephemeralSuite(r.suite) && !needs.flight, nil
	case typeServerKeyExchange:
		r.group = keyExchangeGroup(r.suite, body)
		return !needs.flight, nil
	case typeCertificateRequest:
		r.certRequest = parseCertRequest12(body, r.version)
	case typeServerHelloDone:
		return true, nil
	}
	return false, nil
}

// ephemeralSuite reports a suite whose ServerKeyExchange names its
// group: DHE and ECDHE.
func ephemeralSuite(id uint16) bool {
	s, ok := SuiteByID(id)
	return ok && (s.dhe() || s.ecdhe())
}

// readRecord reads one TLS record.
func readRecord(r io.Reader) (typ uint8, fragment []byte, err error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	if string(hdr[:]) == "HTTP/" {
		return 0, nil, errHTTP
	}
	if hdr[1] != 3 { // not SSL 3.0 or TLS: an SSL 2.0 reply or garbage
		return 0, nil, errMalformed
	}
	n := binary.BigEndian.Uint16(hdr[3:])
	if n > 1<<14+2048 {
		return 0, nil, errMalformed
	}
	fragment = make([]byte, n)
	if _, err := io.ReadFull(r, fragment); err != nil {
		return 0, nil, err
	}
	return hdr[0], fragment, nil
}

// parseServerHello parses a ServerHello body.
func parseServerHello(body []byte) (*reply, error) {
	s := cryptobyte.String(body)
	r := &reply{}
	var random, sessionID []byte
	if !s.ReadUint16(&r.version) || !s.ReadBytes(&random, 32) ||
		!s.ReadUint8LengthPrefixed((*cryptobyte.String)(&sessionID)) ||
		!s.ReadUint16(&r.suite) || !s.ReadUint8(&r.compression) {
		return nil, errMalformed
	}
	r.retry = bytes.Equal(random, helloRetryRandom)
	r.random, r.sessionID = random, sessionID
	if s.Empty() {
		return r, nil
	}
	var exts cryptobyte.String
	if !s.ReadUint16LengthPrefixed(&exts) {
		return nil, errMalformed
	}
	for !exts.Empty() {
		var typ uint16
		var data cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&data) {
			return nil, errMalformed
		}
		switch typ {
		case extSupportedVersions:
			if !data.ReadUint16(&r.version) {
				return nil, errMalformed
			}
		case extRenegotiationInfo:
			r.renegotiationInfo = true
		case extHeartbeat:
			r.heartbeat = true
		case extKeyShare: // a HelloRetryRequest's is the group alone
			var id uint16
			if !data.ReadUint16(&id) {
				return nil, errMalformed
			}
			g := groupByID(id)
			r.group = &g
			data.ReadUint16LengthPrefixed((*cryptobyte.String)(&r.keyShare)) // a ServerHello's has the key too
		}
	}
	return r, nil
}

// parseCertificates parses an SSL 3.0–TLS 1.2 Certificate message.
func parseCertificates(body []byte) ([][]byte, error) {
	s := cryptobyte.String(body)
	var list cryptobyte.String
	if !s.ReadUint24LengthPrefixed(&list) {
		return nil, errMalformed
	}
	var certs [][]byte
	for !list.Empty() {
		var der cryptobyte.String
		if !list.ReadUint24LengthPrefixed(&der) {
			return nil, errMalformed
		}
		certs = append(certs, der)
	}
	return certs, nil
}

// keyExchangeGroup returns the group of a ServerKeyExchange: the named
// curve of ECDHE (ECParameters first, RFC 8422), the prime of DHE
// (ServerDHParams first); nil when it does not parse.
func keyExchangeGroup(suite uint16, body []byte) *Group {
	s := cryptobyte.String(body)
	st, _ := SuiteByID(suite)
	switch {
	case st.ecdhe():
		var curveType uint8
		var id uint16
		if !s.ReadUint8(&curveType) || curveType != 3 || !s.ReadUint16(&id) { // 3: named_curve
			return nil
		}
		g := groupByID(id)
		return &g
	case st.dhe():
		var p []byte
		if !s.ReadUint16LengthPrefixed((*cryptobyte.String)(&p)) || len(p) == 0 {
			return nil
		}
		g := dhGroup(new(big.Int).SetBytes(p))
		return &g
	}
	return nil
}

// readSSL2Reply reads a server's answer to an SSL 2.0 CLIENT-HELLO and
// returns its SERVER-HELLO: the certificate and the cipher kinds both
// sides share. Anything else is an error.
func readSSL2Reply(r io.Reader) (*reply, error) {
	var hdr [2]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	if hdr[0]&0x80 == 0 { // a TLS record or a three-byte SSL 2.0 header: not a SERVER-HELLO
		if hdr[0] >= recordChangeCipherSpec && hdr[0] <= recordHandshake && hdr[1] == 3 {
			return nil, errTLSRecord
		}
		return nil, errMalformed
	}
	msg := make([]byte, int(hdr[0]&0x7f)<<8|int(hdr[1]))
	if _, err := io.ReadFull(r, msg); err != nil {
		return nil, err
	}
	s := cryptobyte.String(msg)
	var typ, hit, certType uint8
	var version, certLen, ciphersLen, connIDLen uint16
	var cert, ciphers []byte
	if !s.ReadUint8(&typ) || typ != 4 || !s.ReadUint8(&hit) || !s.ReadUint8(&certType) ||
		!s.ReadUint16(&version) || !s.ReadUint16(&certLen) || !s.ReadUint16(&ciphersLen) ||
		!s.ReadUint16(&connIDLen) || !s.ReadBytes(&cert, int(certLen)) || !s.ReadBytes(&ciphers, int(ciphersLen)) ||
		ciphersLen%3 != 0 {
		return nil, errMalformed
	}
	rep := &reply{version: version}
	if len(cert) > 0 {
		rep.certs = [][]byte{cert}
	}
	for i := 0; i < len(ciphers); i += 3 {
		kind := uint32(ciphers[i])<<16 | uint32(ciphers[i+1])<<8 | uint32(ciphers[i+2])
		rep.ssl2Ciphers = append(rep.ssl2Ciphers, ssl2CipherName(kind))
	}
	return rep, nil
}

func ssl2CipherName(kind uint32) string {
	for _, c := range ssl2Ciphers {
		if c.kind == kind {
			return c.name
		}
	}
	return fmt.Sprintf("0x%06X", kind)
}
