package guard_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/sitediag/sitediag/internal/guardtest"
	"github.com/sitediag/sitediag/net/netx"
)

func TestListenPacketChecksEveryDestination(t *testing.T) {
	g := guardtest.New(t)
	echo, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	pc, err := g.ListenPacket(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()

	for _, addr := range []string{"10.0.0.1:53", "127.0.0.2:53", "[::1]:53", "[::ffff:10.0.0.1]:53", "169.254.169.254:80"} {
		if _, err := pc.WriteTo([]byte("x"), net.UDPAddrFromAddrPort(mustAddrPort(t, addr))); !errors.Is(err, netx.ErrNotAllowed) {
			t.Errorf("WriteTo %s: got %v, want netx.ErrNotAllowed", addr, err)
		}
	}
	if _, err := pc.WriteTo([]byte("hello"), echo.LocalAddr()); err != nil {
		t.Fatalf("WriteTo allowed address: %v", err)
	}
	echo.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 16)
	n, _, err := echo.ReadFrom(buf)
	if err != nil || string(buf[:n]) != "hello" {
		t.Errorf("got %q, %v; want hello", buf[:n], err)
	}
	// Nothing that writes around the check is exposed.
	if _, ok := pc.(interface {
		WriteMsgUDP([]byte, []byte, *net.UDPAddr) (int, int, error)
	}); ok {
		t.Error("the guarded socket exposes WriteMsgUDP")
	}
	if _, ok := pc.(interface{ Write([]byte) (int, error) }); ok {
		t.Error("the guarded socket exposes Write")
	}
}

func mustAddrPort(t *testing.T, s string) netip.AddrPort {
	t.Helper()
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		t.Fatal(err)
	}
	return ap
}
