package tls

import (
	"bytes"
	"crypto/aes"
	"encoding/hex"
	"testing"
)

// NIST SP 800-38C, appendix C, example 3: a 12-byte nonce and a 64-bit
// tag, as TLS_AES_128_CCM_8_SHA256 uses.
func TestCCMVector(t *testing.T) {
	h := func(s string) []byte { b, _ := hex.DecodeString(s); return b }
	block, _ := aes.NewCipher(h("404142434445464748494a4b4c4d4e4f"))
	c := &ccm{block: block, tagLen: 8}
	nonce, ad := h("101112131415161718191a1b"), h("000102030405060708090a0b0c0d0e0f10111213")
	plain := h("202122232425262728292a2b2c2d2e2f3031323334353637")
	want := h("e3b201a9f5b71a7a9b1ceaeccd97e70b6176aad9a4428aa5484392fbc1b09951")
	got := c.Seal(nil, nonce, plain, ad)
	if !bytes.Equal(got, want) {
		t.Fatalf("seal: got %x, want %x", got, want)
	}
	back, err := c.Open(nil, nonce, got, ad)
	if err != nil || !bytes.Equal(back, plain) {
		t.Fatalf("open: got %x, %v", back, err)
	}
	got[0] ^= 1
	if _, err := c.Open(nil, nonce, got, ad); err == nil {
		t.Error("a flipped bit opened")
	}
}
