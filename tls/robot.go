package tls

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"io"
	"math/big"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// typeClientKeyExchange is the ClientKeyExchange handshake message.
const typeClientKeyExchange = 16

// Robot is the ROBOT verdict (a Bleichenbacher padding oracle) and
// whether there was anything to test.
type Robot struct {
	Finding
	// RSAKeyTransport is true when the server accepts an RSA
	// key-transport suite (TLS_RSA_WITH_*), which the probe then used,
	// false when it accepts none (or no probe got as far as its key
	// exchange), null when it was not tested (no
	// version from TLS 1.0 to TLS 1.2, or the deadline came first).
	RSAKeyTransport *bool `json:"rsaKeyTransport"`
}

// robotVariant is one premaster secret of the ROBOT probe: the
// well-formed one, or one broken in a way a padding oracle may tell
// apart (the vectors of robot-detect and testssl.sh).
type robotVariant struct {
	name string
	// build returns the k-byte plaintext from the random padding pad
	// (k-51 non-zero bytes), the hello's version and 46 random bytes.
	build func(pad []byte, version uint16, random []byte) []byte
}

var robotVariants = []robotVariant{
	{"valid PKCS#1 padding", func(pad []byte, v uint16, rnd []byte) []byte {
		return slices.Concat([]byte{0, 2}, pad, []byte{0, byte(v >> 8), byte(v)}, rnd)
	}},
	{"wrong first bytes", func(pad []byte, v uint16, rnd []byte) []byte {
		return slices.Concat([]byte{0x41, 0x17}, pad, []byte{0, byte(v >> 8), byte(v)}, rnd)
	}},
	{"0x00 in a wrong position", func(pad []byte, _ uint16, rnd []byte) []byte {
		return slices.Concat([]byte{0, 2}, pad, []byte{0x11}, rnd, []byte{0, 0x11})
	}},
	{"no 0x00 separator", func(pad []byte, _ uint16, rnd []byte) []byte {
		return slices.Concat([]byte{0, 2}, pad, []byte{0x11, 0x11, 0x11}, rnd)
	}},
	{"wrong version in the premaster secret", func(pad []byte, _ uint16, rnd []byte) []byte {
		return slices.Concat([]byte{0, 2}, pad, []byte{0, 2, 2}, rnd)
	}},
}

// robot looks for a Bleichenbacher padding oracle (ROBOT) without
// exploiting it, as testssl.sh's check does: at the newest version from
// TLS 1.0 to TLS 1.2, with the RSA key-transport suites only, it sends
// one ClientKeyExchange per variant (then ChangeCipherSpec and a
// Finished it cannot have computed) and compares how the server reacts.
// Reactions that differ, and differ the same way on a second round, are
// an oracle: strong when the broken variants are told apart from each
// other too, else weak.
func (s *scanner) robot(ctx context.Context) Robot {
	v, found := s.legacyCheck()
	f := Robot{Finding: found}
	if v == 0 {
		return f
	}
	unfinished := "not finished: the deadline came, or a probe went unanswered"
	first, err := s.robotRound(ctx, v)
	if s.cutShort(ctx, "robot", err) {
		f.notTested(unfinished)
		return f
	}
	f.RSAKeyTransport = ptr(first != nil)
	f.tested(false)
	if first == nil || allEqual(first.reactions) {
		return f
	}
	second, err := s.robotRound(ctx, v)
	if s.cutShort(ctx, "robot", err) {
		f.RSAKeyTransport = nil
		f.notTested(unfinished)
		return f
	}
	if second == nil || !slices.Equal(first.reactions, second.reactions) {
		return f // not the same twice: noise, not an oracle
	}
	strength := "strong oracle"
	if allEqual(first.reactions[1:]) {
		strength = "weak oracle"
	}
	f.tested(true)
	f.Evidence = append(f.Evidence, versionName(v)+" "+suiteName(first.suite)+": "+strength)
	for i, r := range first.reactions {
		f.Evidence = append(f.Evidence, robotVariants[i].name+": "+r)
	}
	return f
}

// robotResult is what one round of the ROBOT probe saw.
type robotResult struct {
	// suite is the RSA key-transport suite the server picked.
	suite uint16
	// reactions are the server's, one per robotVariants entry.
	reactions []string
}

// robotRound sends one probe per variant, at once; nil when the server
// picks no RSA key-transport suite, its key is not RSA, or a probe
// failed before its flight was sent (its reaction is then ""); the
// error is a probe's that went unanswered.
func (s *scanner) robotRound(ctx context.Context, v uint16) (*robotResult, error) {
	var suites []uint16
	for _, id := range suitesFor(false) {
		if st, _ := SuiteByID(id); st.rsaKeyTransport() {
			suites = append(suites, id)
		}
	}
	h := hello{version: v, suites: suites, serverName: s.serverName}
	res := &robotResult{reactions: make([]string, len(robotVariants))}
	finished := randomBytes(64) // the same unreadable Finished for every variant
	var wg sync.WaitGroup
	var mu sync.Mutex
	errs := make([]error, len(robotVariants))
	for i, variant := range robotVariants {
		wg.Go(func() {
			errs[i] = s.converse(ctx, h, readNeeds{certificate: true}, func(conn net.Conn, rep *reply) error {
				pub, err := certRSAKey(rep)
				if err != nil {
					return err
				}
				mu.Lock()
				res.suite = rep.suite
				mu.Unlock()
				if _, err := conn.Write(robotFlight(pub, v, variant, finished)); err != nil {
					return err
				}
				res.reactions[i] = reaction(conn)
				return nil
			})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if errors.Is(err, errUnanswered) {
			return nil, err
		}
	}
	if slices.Contains(res.reactions, "") {
		return nil, nil
	}
	return res, nil
}

// errNotRSA means the server's certificate has no RSA key.
var errNotRSA = errors.New("tls: the certificate's key is not RSA")

// certRSAKey returns the RSA key of the certificate in rep.
func certRSAKey(rep *reply) (*rsa.PublicKey, error) {
	if len(rep.certs) == 0 {
		return nil, errNotRSA
	}
	c, err := x509.ParseCertificate(rep.certs[0])
	if err != nil {
		return nil, err
	}
	pub, ok := c.PublicKey.(*rsa.PublicKey)
	if !ok {
		return nil, errNotRSA
	}
	return pub, nil
}

// robotFlight is the client's second flight for variant: a
// ClientKeyExchange with the variant encrypted to pub (raw RSA, the
// padding being the variant's), ChangeCipherSpec, and finished as the
// encrypted Finished.
func robotFlight(pub *rsa.PublicKey, v uint16, variant robotVariant, finished []byte) []byte {
	k := pub.Size()
	m := variant.build(nonZeroBytes(k-51), v, randomBytes(46))
	c := new(big.Int).Exp(new(big.Int).SetBytes(m), big.NewInt(int64(pub.E)), pub.N).FillBytes(make([]byte, k))
	body := append(binary.BigEndian.AppendUint16(nil, uint16(len(c))), c...)
	cke := append([]byte{typeClientKeyExchange, byte(len(body) >> 16), byte(len(body) >> 8), byte(len(body))}, body...)
	out := appendRecord(nil, recordHandshake, v, cke)
	out = appendRecord(out, recordChangeCipherSpec, v, []byte{1})
	return appendRecord(out, recordHandshake, v, finished)
}

// reaction words what the server did after the client's flight: its
// alert, or how the connection ended.
func reaction(r io.Reader) string {
	typ, fragment, err := readRecord(r)
	var ne net.Error
	switch {
	case err == nil && typ == recordAlert && len(fragment) == 2:
		return "alert " + alertName(fragment[1])
	case err == nil:
		return "a record of type " + strconv.Itoa(int(typ))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.As(err, &ne) && ne.Timeout():
		return "no answer"
	}
	return strings.TrimPrefix(err.Error(), "tls: ")
}

func allEqual(list []string) bool {
	return !slices.ContainsFunc(list, func(s string) bool { return s != list[0] })
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// nonZeroBytes returns n random bytes none of which is 0, as PKCS #1
// v1.5 padding is.
func nonZeroBytes(n int) []byte {
	b := randomBytes(n)
	for i := range b {
		for b[i] == 0 {
			b[i] = randomBytes(1)[0]
		}
	}
	return b
}
