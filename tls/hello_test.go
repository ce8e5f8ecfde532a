package tls

import (
	"bytes"
	"strings"
	"testing"
)

func TestHelloAvoidsF5Sizes(t *testing.T) {
	all := suitesFor(false)
	for _, v := range []uint16{versionTLS10, versionTLS11, versionTLS12} {
		for n := 1; n <= len(all); n++ {
			rec := hello{version: v, suites: all[:n], serverName: "a-rather-long-name.example.test"}.marshal()
			if size := len(rec) - 5; size >= 256 && size < 512 {
				t.Fatalf("version %04x with %d suites: hello of %d bytes", v, n, size)
			}
		}
	}
}

func TestHelloRoundTrip(t *testing.T) {
	suites := []uint16{0xC02F, 0x002F}
	rec := hello{version: versionTLS11, suites: suites}.marshal()
	ch, ok := readClientHello(bytes.NewReader(rec))
	if !ok || ch.version != versionTLS11 {
		t.Fatalf("got %+v %v, want a TLS 1.1 hello", ch, ok)
	}
	want := []uint16{0xC02F, 0x002F, scsvRenegotiation}
	if len(ch.suites) != len(want) || ch.suites[0] != want[0] || ch.suites[1] != want[1] || ch.suites[2] != want[2] {
		t.Errorf("suites: got %x, want %x", ch.suites, want)
	}
	if !bytes.Equal(ch.compression, []byte{1, 0}) {
		t.Errorf("compression: got %v, want DEFLATE and null", ch.compression)
	}
	if rec[1] != 3 || rec[2] != 1 {
		t.Errorf("record version: got %d.%d, want 3.1", rec[1], rec[2])
	}
}

func TestHelloDropsOverlongServerName(t *testing.T) {
	for _, v := range []uint16{versionTLS10, versionTLS12, versionTLS13} {
		// A name this long would overflow the extension's length fields.
		rec := hello{version: v, suites: suitesFor(v == versionTLS13), serverName: strings.Repeat("a", 1<<16)}.marshal()
		if len(rec) > 4096 {
			t.Errorf("version %04x: hello of %d bytes, want the name left out", v, len(rec))
		}
		if _, ok := readClientHello(bytes.NewReader(rec)); !ok {
			t.Errorf("version %04x: hello does not parse", v)
		}
	}
}
