package tls

import (
	"crypto/rand"
	"encoding/binary"
	"io"
	"net"
	"slices"
	"testing"

	"golang.org/x/crypto/cryptobyte"
)

// legacyServer is a fake server for what crypto/tls cannot serve: one
// version from SSL 3.0 to TLS 1.2 (SSL 3.0 included), any suite, DHE
// groups of any size, DEFLATE. It answers a hello with a canned
// ServerHello, Certificate, ServerKeyExchange and ServerHelloDone, and
// never finishes a handshake: it reads the client's next record and
// closes, unless next takes the connection over.
type legacyServer struct {
	version   uint16
	min       uint16   // if set, older hellos down to min get their own version
	suites    []uint16 // in the server's order of preference
	cert      []byte   // DER; sent unless the suite is anonymous
	dhBits    int      // size of the DHE prime
	compress  bool     // pick DEFLATE when offered
	heartbeat bool     // accept the heartbeat extension
	// next, if set, goes on with the connection after the flight.
	next func(c net.Conn)
}

// clientHello is what the fake servers read from a hello.
type clientHello struct {
	version     uint16
	suites      []uint16
	compression []byte
}

func (l legacyServer) start(t testing.TB) string {
	t.Helper()
	return serve(t, func(c net.Conn) {
		ch, ok := readClientHello(c)
		if !ok {
			return
		}
		c.Write(l.answer(ch))
		if l.next != nil {
			l.next(c)
			return
		}
		readRecord(c)
	})
}

// answer is the server's reply to ch: an alert, or its flight up to
// ServerHelloDone in one record.
func (l legacyServer) answer(ch clientHello) []byte {
	if ch.version < l.version && l.min != 0 && ch.version >= l.min {
		l.version = ch.version // TLS_FALLBACK_SCSV or not
	}
	if ch.version < l.version {
		return alertRecord(l.version, 70) // protocol_version
	}
	i := slices.IndexFunc(l.suites, func(s uint16) bool { return slices.Contains(ch.suites, s) })
	if i < 0 {
		return alertRecord(l.version, 40) // handshake_failure
	}
	suite, _ := SuiteByID(l.suites[i])
	var msgs []byte
	msgs = append(msgs, l.serverHello(ch, suite)...)
	if !suite.anonymous() {
		msgs = append(msgs, handshakeMessage(typeCertificate, func(b *cryptobyte.Builder) {
			b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) {
				b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(l.cert) })
			})
		})...)
	}
	if suite.dhe() {
		msgs = append(msgs, handshakeMessage(typeServerKeyExchange, func(b *cryptobyte.Builder) {
			p := make([]byte, l.dhBits/8)
			rand.Read(p)
			p[0] |= 0x80
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(p) })
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddUint8(2) })
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(p[1:]) })
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(make([]byte, 64)) })
		})...)
	}
	msgs = append(msgs, handshakeMessage(typeServerHelloDone, func(*cryptobyte.Builder) {})...)
	return record(recordHandshake, l.version, msgs)
}

func (l legacyServer) serverHello(ch clientHello, suite Suite) []byte {
	compression := uint8(0)
	if l.compress && slices.Contains(ch.compression, 1) {
		compression = 1
	}
	return handshakeMessage(typeServerHello, func(b *cryptobyte.Builder) {
		var random [32]byte
		rand.Read(random[:])
		b.AddUint16(l.version)
		b.AddBytes(random[:])
		b.AddUint8(0) // no session id
		b.AddUint16(suite.ID)
		b.AddUint8(compression)
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			b.AddUint16(extRenegotiationInfo)
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddUint8(0) })
			if l.heartbeat {
				b.AddUint16(extHeartbeat)
				b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddUint8(1) })
			}
		})
	})
}

// readClientHello reads an SSL 3.0–TLS 1.3 ClientHello in one record;
// ok is false for anything else (an SSL 2.0 hello among them).
func readClientHello(r io.Reader) (clientHello, bool) {
	typ, fragment, err := readRecord(r)
	if err != nil || typ != recordHandshake {
		return clientHello{}, false
	}
	s := cryptobyte.String(fragment)
	var msgType uint8
	var body, random, sid, suites, compression cryptobyte.String
	var ch clientHello
	if !s.ReadUint8(&msgType) || msgType != typeClientHello || !s.ReadUint24LengthPrefixed(&body) ||
		!body.ReadUint16(&ch.version) || !body.ReadBytes((*[]byte)(&random), 32) ||
		!body.ReadUint8LengthPrefixed(&sid) || !body.ReadUint16LengthPrefixed(&suites) ||
		!body.ReadUint8LengthPrefixed(&compression) {
		return clientHello{}, false
	}
	for !suites.Empty() {
		var id uint16
		suites.ReadUint16(&id)
		ch.suites = append(ch.suites, id)
	}
	ch.compression = compression
	return ch, true
}

func handshakeMessage(typ uint8, body func(*cryptobyte.Builder)) []byte {
	var b cryptobyte.Builder
	b.AddUint8(typ)
	b.AddUint24LengthPrefixed(body)
	return b.BytesOrPanic()
}

func record(typ uint8, version uint16, payload []byte) []byte {
	out := []byte{typ, 0, 0, 0, 0}
	binary.BigEndian.PutUint16(out[1:], version)
	binary.BigEndian.PutUint16(out[3:], uint16(len(payload)))
	return append(out, payload...)
}

func alertRecord(version uint16, desc uint8) []byte {
	return record(recordAlert, version, []byte{2, desc})
}

// ssl2Server is a fake SSL 2.0 server: it answers an SSL 2.0
// CLIENT-HELLO with a canned SERVER-HELLO carrying cert and the cipher
// kinds both sides share, and closes on anything else.
type ssl2Server struct {
	cert    []byte
	ciphers []uint32
}

func (s2 ssl2Server) start(t testing.TB) string {
	t.Helper()
	return serve(t, func(c net.Conn) {
		var hdr [2]byte
		if _, err := io.ReadFull(c, hdr[:]); err != nil || hdr[0]&0x80 == 0 {
			return
		}
		msg := make([]byte, int(hdr[0]&0x7f)<<8|int(hdr[1]))
		if _, err := io.ReadFull(c, msg); err != nil || msg[0] != 1 || binary.BigEndian.Uint16(msg[1:]) != versionSSL2 {
			return
		}
		specLen := int(binary.BigEndian.Uint16(msg[3:]))
		c.Write(s2.answer(msg[9 : 9+specLen]))
	})
}

// answer is the SERVER-HELLO for a CLIENT-HELLO offering specs.
func (s2 ssl2Server) answer(specs []byte) []byte {
	var shared []byte
	for _, kind := range s2.ciphers {
		for i := 0; i+3 <= len(specs); i += 3 {
			if uint32(specs[i])<<16|uint32(specs[i+1])<<8|uint32(specs[i+2]) == kind {
				shared = append(shared, specs[i:i+3]...)
			}
		}
	}
	out := []byte{4, 0, 1, 0, 2} // SERVER-HELLO, no session hit, X.509, version 2
	out = binary.BigEndian.AppendUint16(out, uint16(len(s2.cert)))
	out = binary.BigEndian.AppendUint16(out, uint16(len(shared)))
	out = binary.BigEndian.AppendUint16(out, 16)
	out = append(out, s2.cert...)
	out = append(out, shared...)
	out = append(out, make([]byte, 16)...)
	return append([]byte{0x80 | byte(len(out)>>8), byte(len(out))}, out...)
}
