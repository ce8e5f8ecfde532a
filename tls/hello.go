package tls

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/binary"
	"slices"

	"golang.org/x/crypto/cryptobyte"
)

// Protocol versions on the wire.
const (
	versionSSL2  uint16 = 0x0002
	versionSSL3  uint16 = 0x0300
	versionTLS10 uint16 = 0x0301
	versionTLS11 uint16 = 0x0302
	versionTLS12 uint16 = 0x0303
	versionTLS13 uint16 = 0x0304
)

// Record content types and handshake message types.
const (
	recordAlert     = 21
	recordHandshake = 22

	typeClientHello        = 1
	typeServerHello        = 2
	typeCertificate        = 11
	typeServerKeyExchange  = 12
	typeCertificateRequest = 13
	typeServerHelloDone    = 14
)

// Extension code points.
const (
	extServerName          = 0
	extSupportedGroups     = 10
	extHeartbeat           = 15
	extECPointFormats      = 11
	extSignatureAlgorithms = 13
	extPadding             = 21
	extExtendedMasterSec   = 23
	extSupportedVersions   = 43
	extKeyShare            = 51
	extRenegotiationInfo   = 0xff01
)

// maxServerName is the longest name sent as SNI: a DNS name's limit,
// far inside what the extension's length fields hold.
const maxServerName = 253

// groupX25519 is the named group of the one key share a TLS 1.3 hello
// sends.
const groupX25519 = 29

// legacyGroups are the elliptic curves an SSL 3.0–TLS 1.2 hello offers:
// every named curve of RFC 4492 and RFC 8422, so a server that only has
// an odd curve still picks its ECDHE suites.
var legacyGroups = []uint16{
	29, 23, 24, 25, 30, // x25519, secp256r1, secp384r1, secp521r1, x448
	26, 27, 28, // brainpool
	22, 21, 20, 19, 18, 17, 16, 15, // secp256k1 … secp160k1
	14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, // sect571r1 … sect163k1
}

// tls13Groups are the groups a TLS 1.3 hello offers; it sends a key
// share for X25519 only, and a server that wants another group answers
// with a HelloRetryRequest, which is enough to tell TLS 1.3 apart.
var tls13Groups = []uint16{29, 23, 24, 25, 30, 0x11EC, 256, 257, 258, 259, 260}

// allTLS13Groups are the groups TLS 1.3 defines, the post-quantum and
// hybrid ones included, which the group enumeration offers.
var allTLS13Groups = []uint16{
	0x11EC, 0x11EB, 0x11ED, 0x6399, 0x0200, 0x0201, 0x0202, // X25519MLKEM768, SecP256r1MLKEM768, …
	29, 23, 24, 25, 30, 31, 32, 33, 256, 257, 258, 259, 260,
}

// signatureSchemes are offered in TLS 1.2 and 1.3 hellos: every scheme,
// the SHA-1, SHA-224 and DSA ones included, so no server is turned away
// for want of one.
var signatureSchemes = []uint16{
	0x0403, 0x0503, 0x0603, 0x0804, 0x0805, 0x0806, 0x0807, 0x0808,
	0x0809, 0x080a, 0x080b, 0x0401, 0x0501, 0x0601, 0x0303, 0x0301,
	0x0302, 0x0203, 0x0201, 0x0202, 0x0402, 0x0502, 0x0602,
}

// hello describes one ClientHello.
type hello struct {
	// version is the highest version offered: the hello's
	// legacy_version, or TLS 1.3 through supported_versions.
	version uint16
	// suites are offered in this order.
	suites []uint16
	// serverName is sent as SNI; empty, or longer than a DNS name can
	// be, sends none.
	serverName string
	// fallback adds TLS_FALLBACK_SCSV.
	fallback bool
	// groups, when set, replaces the hello's supported_groups; a TLS
	// 1.3 hello's X25519 key share is sent only when X25519 is among
	// them.
	groups []uint16
	// heartbeat offers the heartbeat extension (RFC 6520), peer allowed
	// to send.
	heartbeat bool
	// sessionID asks to resume that session (SSL 3.0–TLS 1.2).
	sessionID []byte
	// renegotiating marks a hello sent inside an established connection:
	// it carries no SCSV, and renegotiation_info holds verifyData (the
	// client's last Finished), or is left out when verifyData is nil
	// because the server has no RFC 5746.
	renegotiating bool
	verifyData    []byte
	// shares, when set, are the TLS 1.3 key shares sent in place of the
	// one X25519 share.
	shares []keyShare
	// minVersion, for a TLS 1.3 hello, is the oldest version
	// supported_versions lists (TLS 1.3 alone when zero); below TLS 1.3
	// the hello carries the extensions of the older versions too.
	minVersion uint16
	// noCompression offers the null compression method alone, as every
	// client does, rather than DEFLATE too.
	noCompression bool
}

// oldest is the oldest version the hello offers.
func (h hello) oldest() uint16 {
	if h.version == versionTLS13 && h.minVersion != 0 {
		return h.minVersion
	}
	return h.version
}

// keyShare is one TLS 1.3 key share: a group and the client's public
// key in it.
type keyShare struct {
	group  uint16
	public []byte
}

// marshal returns the hello as one handshake record.
func (h hello) marshal() []byte {
	var random [32]byte
	rand.Read(random[:])
	legacy := min(h.version, versionTLS12)

	var b cryptobyte.Builder
	b.AddUint16(legacy)
	b.AddBytes(random[:])
	b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) {
		if h.version == versionTLS13 { // middlebox compatibility mode
			var sid [32]byte
			rand.Read(sid[:])
			b.AddBytes(sid[:])
		} else {
			b.AddBytes(h.sessionID)
		}
	})
	b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
		for _, s := range h.suites {
			b.AddUint16(s)
		}
		if h.oldest() < versionTLS13 && !h.renegotiating {
			b.AddUint16(scsvRenegotiation)
		}
		if h.fallback {
			b.AddUint16(scsvFallback)
		}
	})
	b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) {
		if h.version < versionTLS13 && !h.noCompression {
			b.AddUint8(1) // DEFLATE: a server that picks it is open to CRIME
		}
		b.AddUint8(0)
	})
	body := b.BytesOrPanic()
	if h.version >= versionTLS10 {
		ext := h.extensions()
		// Some servers choke on hellos of 256 to 511 bytes: pad past
		// them (RFC 7685). n counts the message's 4-byte header.
		if n := 4 + len(body) + 2 + len(ext); n >= 256 && n < 512 {
			ext = append(ext, 0, extPadding, 0, 0)
			pad := max(512-n-4, 0)
			binary.BigEndian.PutUint16(ext[len(ext)-2:], uint16(pad))
			ext = append(ext, make([]byte, pad)...)
		}
		body = binary.BigEndian.AppendUint16(body, uint16(len(ext)))
		body = append(body, ext...)
	}

	record := make([]byte, 9, 9+len(body))
	record[0] = recordHandshake
	binary.BigEndian.PutUint16(record[1:], min(legacy, versionTLS10))
	binary.BigEndian.PutUint16(record[3:], uint16(4+len(body)))
	binary.BigEndian.PutUint32(record[5:], uint32(len(body)))
	record[5] = typeClientHello
	return append(record, body...)
}

// extensions returns the hello's extensions, without the list's length.
func (h hello) extensions() []byte {
	var b cryptobyte.Builder
	if h.serverName != "" && len(h.serverName) <= maxServerName {
		addExtension(&b, extServerName, func(b *cryptobyte.Builder) {
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
				b.AddUint8(0) // host_name
				b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte(h.serverName)) })
			})
		})
	}
	groups := legacyGroups
	switch {
	case h.groups != nil:
		groups = h.groups
	case h.version == versionTLS13:
		groups = tls13Groups
	}
	addExtension(&b, extSupportedGroups, func(b *cryptobyte.Builder) { addUint16List(b, groups) })
	if h.oldest() < versionTLS13 {
		addExtension(&b, extECPointFormats, func(b *cryptobyte.Builder) {
			b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte{0, 1, 2}) })
		})
		if !h.renegotiating || h.verifyData != nil {
			addExtension(&b, extRenegotiationInfo, func(b *cryptobyte.Builder) {
				b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(h.verifyData) })
			})
		}
		addExtension(&b, extExtendedMasterSec, func(*cryptobyte.Builder) {})
	}
	if h.heartbeat {
		addExtension(&b, extHeartbeat, func(b *cryptobyte.Builder) { b.AddUint8(1) }) // peer_allowed_to_send
	}
	if h.version >= versionTLS12 {
		addExtension(&b, extSignatureAlgorithms, func(b *cryptobyte.Builder) { addUint16List(b, signatureSchemes) })
	}
	if h.version == versionTLS13 {
		addExtension(&b, extSupportedVersions, func(b *cryptobyte.Builder) {
			b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) {
				for v := versionTLS13; v >= h.oldest() && v >= versionTLS10; v-- {
					b.AddUint16(v)
				}
			})
		})
		addExtension(&b, extKeyShare, func(b *cryptobyte.Builder) {
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
				for _, ks := range h.shares {
					b.AddUint16(ks.group)
					b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(ks.public) })
				}
				if h.shares == nil && slices.Contains(groups, groupX25519) { // else an empty list: the server names its group
					b.AddUint16(groupX25519)
					b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(x25519Share()) })
				}
			})
		})
	}
	return b.BytesOrPanic()
}

// x25519Share returns a fresh X25519 public key. The scan never
// finishes a handshake, so the private half is dropped.
func x25519Share() []byte {
	k, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		panic("tls: X25519 key generation failed: " + err.Error())
	}
	return k.PublicKey().Bytes()
}

func addExtension(b *cryptobyte.Builder, typ uint16, body func(*cryptobyte.Builder)) {
	b.AddUint16(typ)
	b.AddUint16LengthPrefixed(body)
}

func addUint16List(b *cryptobyte.Builder, list []uint16) {
	b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
		for _, v := range list {
			b.AddUint16(v)
		}
	})
}

// SSL 2.0 cipher kinds (three bytes each on the wire).
var ssl2Ciphers = []struct {
	kind uint32
	name string
}{
	{0x010080, "SSL_CK_RC4_128_WITH_MD5"},
	{0x020080, "SSL_CK_RC4_128_EXPORT40_WITH_MD5"},
	{0x030080, "SSL_CK_RC2_128_CBC_WITH_MD5"},
	{0x040080, "SSL_CK_RC2_128_CBC_EXPORT40_WITH_MD5"},
	{0x050080, "SSL_CK_IDEA_128_CBC_WITH_MD5"},
	{0x060040, "SSL_CK_DES_64_CBC_WITH_MD5"},
	{0x0700C0, "SSL_CK_DES_192_EDE3_CBC_WITH_MD5"},
	{0x080080, "SSL_CK_RC4_64_WITH_MD5"},
}

// ssl2Hello returns an SSL 2.0 CLIENT-HELLO offering every SSL 2.0
// cipher kind, with a two-byte record header.
func ssl2Hello() []byte {
	var challenge [16]byte
	rand.Read(challenge[:])
	msg := []byte{1, 0, 2} // MSG-CLIENT-HELLO, version 2
	msg = binary.BigEndian.AppendUint16(msg, uint16(3*len(ssl2Ciphers)))
	msg = binary.BigEndian.AppendUint16(msg, 0) // session id
	msg = binary.BigEndian.AppendUint16(msg, uint16(len(challenge)))
	for _, c := range ssl2Ciphers {
		msg = append(msg, byte(c.kind>>16), byte(c.kind>>8), byte(c.kind))
	}
	msg = append(msg, challenge[:]...)
	return append([]byte{0x80 | byte(len(msg)>>8), byte(len(msg))}, msg...)
}
