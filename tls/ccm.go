package tls

import (
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
	"errors"
)

// ccm is AES-CCM (RFC 3610, NIST SP 800-38C) with a 12-byte nonce, as
// TLS 1.3's TLS_AES_128_CCM_SHA256 (16-byte tag) and
// TLS_AES_128_CCM_8_SHA256 (8-byte tag) use it (RFC 8446, RFC 6655).
// The standard library has no CCM.
type ccm struct {
	block  cipher.Block
	tagLen int
}

const ccmNonceLen = 12

// errCCMOpen means a CCM ciphertext did not authenticate.
var errCCMOpen = errors.New("tls: CCM message authentication failed")

func (c *ccm) NonceSize() int { return ccmNonceLen }
func (c *ccm) Overhead() int  { return c.tagLen }

// counter returns the counter block i for nonce: flags L'=2 (L=3, as
// 15-12), nonce, counter.
func (c *ccm) counter(nonce []byte, i uint32) []byte {
	b := make([]byte, 16)
	b[0] = 2
	copy(b[1:], nonce)
	b[13], b[14], b[15] = byte(i>>16), byte(i>>8), byte(i)
	return b
}

// mac is CBC-MAC over B0, the encoded additional data and the
// plaintext, each part padded to the block size.
func (c *ccm) mac(nonce, plaintext, ad []byte) []byte {
	b0 := make([]byte, 16)
	b0[0] = byte(((c.tagLen-2)/2)<<3 | 2)
	if len(ad) > 0 {
		b0[0] |= 0x40
	}
	copy(b0[1:], nonce)
	n := len(plaintext)
	b0[13], b0[14], b0[15] = byte(n>>16), byte(n>>8), byte(n)
	data := append([]byte{}, b0...)
	if len(ad) > 0 {
		data = binary.BigEndian.AppendUint16(data, uint16(len(ad))) // TLS's additional data is short
		data = append(data, ad...)
		data = append(data, make([]byte, (16-len(data)%16)%16)...)
	}
	data = append(data, plaintext...)
	data = append(data, make([]byte, (16-len(data)%16)%16)...)
	x := make([]byte, 16)
	for i := 0; i < len(data); i += 16 {
		subtle.XORBytes(x, x, data[i:i+16])
		c.block.Encrypt(x, x)
	}
	return x[:c.tagLen]
}

// ctr XORs src with the key stream from counter 1 on.
func (c *ccm) ctr(nonce, dst, src []byte) {
	cipher.NewCTR(c.block, c.counter(nonce, 1)).XORKeyStream(dst, src)
}

// tagMask encrypts the tag with counter block 0.
func (c *ccm) tagMask(nonce, tag []byte) []byte {
	s0 := make([]byte, 16)
	c.block.Encrypt(s0, c.counter(nonce, 0))
	out := make([]byte, len(tag))
	subtle.XORBytes(out, tag, s0)
	return out
}

// Seal encrypts and authenticates plaintext, appending the result to dst.
func (c *ccm) Seal(dst, nonce, plaintext, ad []byte) []byte {
	out := make([]byte, len(plaintext))
	c.ctr(nonce, out, plaintext)
	return append(append(dst, out...), c.tagMask(nonce, c.mac(nonce, plaintext, ad))...)
}

// Open authenticates and decrypts ciphertext, appending the result to dst.
func (c *ccm) Open(dst, nonce, ciphertext, ad []byte) ([]byte, error) {
	if len(ciphertext) < c.tagLen {
		return nil, errCCMOpen
	}
	n := len(ciphertext) - c.tagLen
	plain := make([]byte, n)
	c.ctr(nonce, plain, ciphertext[:n])
	if subtle.ConstantTimeCompare(c.tagMask(nonce, c.mac(nonce, plain, ad)), ciphertext[n:]) != 1 {
		return nil, errCCMOpen
	}
	return append(dst, plain...), nil
}
