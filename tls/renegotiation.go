package tls

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	cryptotls "crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash"
	"net"
	"slices"
	"strings"

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
	// tested (no TLS 1.2 handshake with an AES-GCM suite could be
	// completed, or no version below TLS 1.3).
	ClientInitiated *bool `json:"clientInitiated"`
}

// renegotiationSuites are the suites the renegotiation probe offers:
// TLS 1.2 AES-GCM, whose record protection it redoes by hand.
var renegotiationSuites = []uint16{
	cryptotls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, cryptotls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	cryptotls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, cryptotls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	cryptotls.TLS_RSA_WITH_AES_128_GCM_SHA256, cryptotls.TLS_RSA_WITH_AES_256_GCM_SHA384,
}

// renegotiation completes a TLS 1.2 handshake with crypto/tls, then
// sends a new ClientHello inside the connection, encrypted with the
// connection's keys (from its key log), as `openssl s_client` does on
// "R" and testssl.sh tests. A ServerHello in answer means the server
// renegotiates at a client's request; an alert (no_renegotiation) or
// the connection's end means it refuses.
func (s *scanner) renegotiation(ctx context.Context) Renegotiation {
	r := Renegotiation{Finding: Finding{Evidence: []string{}}}
	if !s.supports(versionTLS12) {
		return r
	}
	s.withConn(ctx, func(ctx context.Context, conn net.Conn) error {
		rc := &recordingConn{Conn: conn}
		var keyLog bytes.Buffer
		cfg := s.clientConfig(cryptotls.VersionTLS12)
		cfg.MinVersion, cfg.CipherSuites, cfg.KeyLogWriter = cryptotls.VersionTLS12, renegotiationSuites, &keyLog
		tc := cryptotls.Client(rc, cfg)
		if err := tracing.Handshake(ctx, tc); err != nil {
			return err
		}
		sh, err := rc.serverHello()
		if err != nil {
			return err
		}
		st := tc.ConnectionState()
		keys, err := newGCMKeys(keyLog.String(), sh.random, st.CipherSuite)
		if err != nil {
			return err
		}
		h := hello{version: versionTLS12, suites: suitesFor(false), serverName: s.serverName, renegotiating: true}
		if sh.renegotiationInfo {
			h.verifyData = st.TLSUnique // the client's Finished of this full handshake
		}
		if _, err := conn.Write(keys.seal(recordHandshake, h.marshal()[5:])); err != nil {
			return err
		}
		accepted := keys.renegotiated(conn)
		r.ClientInitiated = &accepted
		if accepted {
			r.Vulnerable = true
			r.Evidence = []string{renegotiationEvidence(sh.renegotiationInfo)}
		}
		return nil
	})
	if s.cutShort(ctx, "renegotiation") {
		r.ClientInitiated = nil
	}
	return r
}

// renegotiationEvidence words an accepted client-initiated
// renegotiation.
func renegotiationEvidence(secure bool) string {
	if secure {
		return "TLSv1.2 client-initiated renegotiation accepted (secure, RFC 5746): a client can make the server redo full handshakes (DoS)"
	}
	return "TLSv1.2 client-initiated renegotiation accepted without RFC 5746: insecure (CVE-2009-3555), and a DoS exposure"
}

// supports reports whether v's first hello was accepted.
func (s *scanner) supports(v uint16) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.versions, v)
}

// gcmKeys protect TLS 1.2 AES-GCM records of an established connection
// from the client's side: the next record each way has sequence number
// 1, the Finished messages having had 0.
type gcmKeys struct {
	client, server     cipher.AEAD
	clientIV, serverIV []byte
}

// errKeyLog means the key log holds no master secret.
var errKeyLog = errors.New("tls: no master secret in the key log")

// newGCMKeys derives the record keys of suite (RFC 5246 §6.3) from the
// connection's key log line "CLIENT_RANDOM <client random> <master
// secret>" and the ServerHello's random.
func newGCMKeys(keyLog string, serverRandom []byte, suite uint16) (*gcmKeys, error) {
	fields := strings.Fields(keyLog)
	if len(fields) < 3 || fields[0] != "CLIENT_RANDOM" {
		return nil, errKeyLog
	}
	clientRandom, err1 := hex.DecodeString(fields[1])
	master, err2 := hex.DecodeString(fields[2])
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	keyLen, hashFunc := 16, sha256.New
	if strings.HasSuffix(suiteName(suite), "_SHA384") {
		keyLen, hashFunc = 32, sha512.New384
	}
	block := prf12(hashFunc, master, "key expansion", append(serverRandom, clientRandom...), 2*keyLen+8)
	k := &gcmKeys{clientIV: block[2*keyLen : 2*keyLen+4], serverIV: block[2*keyLen+4:]}
	var err error
	if k.client, err = newGCM(block[:keyLen]); err != nil {
		return nil, err
	}
	k.server, err = newGCM(block[keyLen : 2*keyLen])
	return k, err
}

func newGCM(key []byte) (cipher.AEAD, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

// prf12 is TLS 1.2's PRF, P_hash (RFC 5246 §5).
func prf12(h func() hash.Hash, secret []byte, label string, seed []byte, n int) []byte {
	seed = append([]byte(label), seed...)
	mac := hmac.New(h, secret)
	mac.Write(seed)
	a := mac.Sum(nil)
	var out []byte
	for len(out) < n {
		mac.Reset()
		mac.Write(a)
		mac.Write(seed)
		out = mac.Sum(out)
		mac.Reset()
		mac.Write(a)
		a = mac.Sum(nil)
	}
	return out[:n]
}

// nextSeq is the sequence number of the first record after the
// Finished messages.
const nextSeq = 1

// additionalData is a TLS 1.2 AEAD record's additional data.
func additionalData(typ uint8, n int) []byte {
	ad := binary.BigEndian.AppendUint64(nil, nextSeq)
	ad = append(ad, typ)
	ad = binary.BigEndian.AppendUint16(ad, versionTLS12)
	return binary.BigEndian.AppendUint16(ad, uint16(n))
}

// seal returns plaintext as the client's next record of type typ.
func (k *gcmKeys) seal(typ uint8, plaintext []byte) []byte {
	explicit := binary.BigEndian.AppendUint64(nil, nextSeq)
	nonce := append(append([]byte{}, k.clientIV...), explicit...)
	payload := k.client.Seal(explicit, nonce, plaintext, additionalData(typ, len(plaintext)))
	return appendRecord(nil, typ, versionTLS12, payload)
}

// renegotiated reads the server's next record and reports whether it is
// a ServerHello.
func (k *gcmKeys) renegotiated(conn net.Conn) bool {
	typ, fragment, err := readRecord(conn)
	if err != nil || typ != recordHandshake || len(fragment) < 8+k.server.Overhead() {
		return false
	}
	nonce := append(append([]byte{}, k.serverIV...), fragment[:8]...)
	n := len(fragment) - 8 - k.server.Overhead()
	plain, err := k.server.Open(nil, nonce, fragment[8:], additionalData(typ, n))
	return err == nil && len(plain) > 0 && plain[0] == typeServerHello
}
