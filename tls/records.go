package tls

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash"
	"strings"

	"golang.org/x/crypto/chacha20poly1305"
)

// recordKeys protect the records of an established SSL 3.0–TLS 1.2
// connection from the client's side, after the Finished messages: the
// next record each way has sequence number 1. They cover the suites
// crypto/tls can complete a handshake with, RC4 aside: AES-GCM,
// ChaCha20-Poly1305, and AES or 3DES in CBC mode with HMAC.
type recordKeys struct {
	version uint16
	aead    struct {
		client, server     cipher.AEAD
		clientIV, serverIV []byte
		explicit           bool // GCM's 8-byte explicit nonce; ChaCha20 has none
	}
	cbc struct {
		client, server         cipher.Block
		clientMAC, serverMAC   []byte
		newMAC                 func() hash.Hash
		clientLast, serverLast []byte // TLS 1.0: the last ciphertext block each way, the next record's IV
	}
}

// errKeyLog means the key log holds no master secret.
var errKeyLog = errors.New("tls: no master secret in the key log")

// errSuiteKeys means the suite's record protection is not one
// recordKeys implements.
var errSuiteKeys = errors.New("tls: record protection of this suite is not implemented")

// suiteCipher describes what a suite's records need: its cipher, MAC
// and the PRF hash of TLS 1.2.
type suiteCipher struct {
	keyLen, macLen int
	aead           string // "gcm", "chacha20", or "" for CBC
	des3           bool
	newMAC, prf    func() hash.Hash
}

// cipherOf reads suite's record protection from its IANA name.
func cipherOf(suite uint16) (suiteCipher, error) {
	name := suiteName(suite)
	c := suiteCipher{prf: sha256.New}
	if strings.HasSuffix(name, "_SHA384") {
		c.prf = sha512.New384
	}
	switch {
	case strings.Contains(name, "_CHACHA20_POLY1305"):
		c.keyLen, c.aead = 32, "chacha20"
	case strings.Contains(name, "_AES_128_GCM_"), strings.Contains(name, "_AES_256_GCM_"):
		c.keyLen, c.aead = 16, "gcm"
		if strings.Contains(name, "_AES_256_") {
			c.keyLen = 32
		}
	case strings.Contains(name, "_AES_128_CBC_"), strings.Contains(name, "_AES_256_CBC_"), strings.Contains(name, "_3DES_EDE_CBC_"):
		c.keyLen = 16
		switch {
		case strings.Contains(name, "_AES_256_"):
			c.keyLen = 32
		case strings.Contains(name, "_3DES_"):
			c.keyLen, c.des3 = 24, true
		}
		switch {
		case strings.HasSuffix(name, "_SHA"):
			c.macLen, c.newMAC = 20, sha1.New
		case strings.HasSuffix(name, "_SHA256"):
			c.macLen, c.newMAC = 32, sha256.New
		case strings.HasSuffix(name, "_SHA384"):
			c.macLen, c.newMAC = 48, sha512.New384
		default:
			return c, errSuiteKeys
		}
	default:
		return c, errSuiteKeys
	}
	return c, nil
}

// newRecordKeys derives the record keys of suite at version (RFC 5246
// §6.3, RFC 2246 §6.3) from the connection's key log line
// "CLIENT_RANDOM <client random> <master secret>" and the ServerHello's
// random. clientFinished and serverFinished are the ciphertexts of the
// Finished records, whose last blocks are TLS 1.0's next IVs.
func newRecordKeys(keyLog string, version, suite uint16, serverRandom, clientFinished, serverFinished []byte) (*recordKeys, error) {
	fields := strings.Fields(keyLog)
	if len(fields) < 3 || fields[0] != "CLIENT_RANDOM" {
		return nil, errKeyLog
	}
	clientRandom, err1 := hex.DecodeString(fields[1])
	master, err2 := hex.DecodeString(fields[2])
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	sc, err := cipherOf(suite)
	if err != nil {
		return nil, err
	}
	ivLen := 0
	switch sc.aead {
	case "gcm":
		ivLen = 4
	case "chacha20":
		ivLen = 12
	}
	seed := append(append([]byte{}, serverRandom...), clientRandom...)
	n := 2*sc.macLen + 2*sc.keyLen + 2*ivLen
	var block []byte
	if version == versionTLS12 {
		block = prf12(sc.prf, master, "key expansion", seed, n)
	} else {
		block = prf10(master, "key expansion", seed, n)
	}
	take := func(n int) []byte {
		b := block[:n]
		block = block[n:]
		return b
	}
	k := &recordKeys{version: version}
	clientMAC, serverMAC := take(sc.macLen), take(sc.macLen)
	clientKey, serverKey := take(sc.keyLen), take(sc.keyLen)
	switch sc.aead {
	case "gcm", "chacha20":
		k.aead.clientIV, k.aead.serverIV, k.aead.explicit = take(ivLen), take(ivLen), sc.aead == "gcm"
		newAEAD := newGCM
		if sc.aead == "chacha20" {
			newAEAD = chacha20poly1305.New
		}
		if k.aead.client, err = newAEAD(clientKey); err != nil {
			return nil, err
		}
		k.aead.server, err = newAEAD(serverKey)
		return k, err
	}
	k.cbc.clientMAC, k.cbc.serverMAC, k.cbc.newMAC = clientMAC, serverMAC, sc.newMAC
	newBlock := aes.NewCipher
	if sc.des3 {
		newBlock = des.NewTripleDESCipher
	}
	if k.cbc.client, err = newBlock(clientKey); err != nil {
		return nil, err
	}
	if k.cbc.server, err = newBlock(serverKey); err != nil {
		return nil, err
	}
	bs := k.cbc.client.BlockSize()
	if len(clientFinished) < bs || len(serverFinished) < bs {
		return nil, errMalformed
	}
	k.cbc.clientLast, k.cbc.serverLast = clientFinished[len(clientFinished)-bs:], serverFinished[len(serverFinished)-bs:]
	return k, nil
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

// prf10 is the PRF of TLS 1.0 and 1.1 (RFC 2246 §5): P_MD5 of the
// secret's first half XOR P_SHA1 of its second.
func prf10(secret []byte, label string, seed []byte, n int) []byte {
	half := (len(secret) + 1) / 2
	out := prf12(md5.New, secret[:half], label, seed, n)
	for i, b := range prf12(sha1.New, secret[len(secret)-half:], label, seed, n) {
		out[i] ^= b
	}
	return out
}

// nextSeq is the sequence number of the first record after the
// Finished messages.
const nextSeq = 1

// pseudoHeader is what a record's MAC or AEAD covers beside its
// plaintext: sequence number, type, version and plaintext length.
func (k *recordKeys) pseudoHeader(typ uint8, n int) []byte {
	ad := binary.BigEndian.AppendUint64(nil, nextSeq)
	ad = append(ad, typ)
	ad = binary.BigEndian.AppendUint16(ad, k.version)
	return binary.BigEndian.AppendUint16(ad, uint16(n))
}

// nonce is an AEAD record's nonce: GCM's fixed part and explicit
// sequence number, or ChaCha20's IV XOR the sequence number (RFC 7905).
func (k *recordKeys) nonce(iv []byte) []byte {
	seq := binary.BigEndian.AppendUint64(nil, nextSeq)
	if k.aead.explicit {
		return append(append([]byte{}, iv...), seq...)
	}
	n := append([]byte{}, iv...)
	for i, b := range seq {
		n[len(n)-8+i] ^= b
	}
	return n
}

// seal returns plaintext as the client's next record of type typ.
func (k *recordKeys) seal(typ uint8, plaintext []byte) []byte {
	ad := k.pseudoHeader(typ, len(plaintext))
	if k.aead.client != nil {
		var payload []byte
		if k.aead.explicit {
			payload = binary.BigEndian.AppendUint64(nil, nextSeq)
		}
		payload = k.aead.client.Seal(payload, k.nonce(k.aead.clientIV), plaintext, ad)
		return appendRecord(nil, typ, k.version, payload)
	}
	mac := hmac.New(k.cbc.newMAC, k.cbc.clientMAC)
	mac.Write(ad)
	mac.Write(plaintext)
	data := mac.Sum(append([]byte{}, plaintext...))
	bs := k.cbc.client.BlockSize()
	pad := bs - (len(data)+1)%bs
	if pad == bs {
		pad = 0
	}
	for range pad + 1 {
		data = append(data, byte(pad))
	}
	iv := k.cbc.clientLast
	var payload []byte
	if k.version > versionTLS10 { // an explicit IV of its own
		iv = randomBytes(bs)
		payload = append(payload, iv...)
	}
	out := make([]byte, len(data))
	cipher.NewCBCEncrypter(k.cbc.client, iv).CryptBlocks(out, data)
	return appendRecord(nil, typ, k.version, append(payload, out...))
}

// open decrypts the server's next record of type typ and returns its
// plaintext: whether the server answered with a ServerHello or an alert
// is all the scan reads from it, so a CBC record's MAC is not checked.
func (k *recordKeys) open(typ uint8, fragment []byte) ([]byte, error) {
	if k.aead.server != nil {
		explicit := 0
		if k.aead.explicit {
			explicit = 8
		}
		if len(fragment) < explicit+k.aead.server.Overhead() {
			return nil, errMalformed
		}
		nonce := k.nonce(k.aead.serverIV)
		if k.aead.explicit {
			nonce = append(append([]byte{}, k.aead.serverIV...), fragment[:8]...)
		}
		n := len(fragment) - explicit - k.aead.server.Overhead()
		return k.aead.server.Open(nil, nonce, fragment[explicit:], k.pseudoHeader(typ, n))
	}
	bs := k.cbc.server.BlockSize()
	iv := k.cbc.serverLast
	if k.version > versionTLS10 {
		if len(fragment) < bs {
			return nil, errMalformed
		}
		iv, fragment = fragment[:bs], fragment[bs:]
	}
	if len(fragment) == 0 || len(fragment)%bs != 0 {
		return nil, errMalformed
	}
	out := make([]byte, len(fragment))
	cipher.NewCBCDecrypter(k.cbc.server, iv).CryptBlocks(out, fragment)
	return out, nil
}
