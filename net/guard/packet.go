package guard

import (
	"context"
	"net"
	"net/netip"

	"github.com/sitediag/sitediag/net/netx"
)

// ListenPacket returns an unconnected UDP socket (for QUIC, say) that
// sends only to addresses the policy allows: every datagram's
// destination is checked, and one to a refused address fails with
// netx.ErrNotAllowed before it leaves. Resolve the destination with Resolve
// first. The caller closes the socket.
func (g *Guard) ListenPacket(ctx context.Context) (net.PacketConn, error) {
	var lc net.ListenConfig
	pc, err := lc.ListenPacket(ctx, "udp", ":0")
	if err != nil {
		return nil, err
	}
	udp := pc.(*net.UDPConn)
	return &guardedPacketConn{PacketConn: udp, udp: udp, guard: g}, nil
}

// guardedPacketConn is a UDP socket whose writes are checked. It exposes
// only the PacketConn methods and buffer sizing, so nothing can write
// around the check (no Write, WriteMsgUDP or SyscallConn).
type guardedPacketConn struct {
	net.PacketConn
	udp   *net.UDPConn
	guard *Guard
}

// WriteTo sends p to addr when the policy allows addr.
func (c *guardedPacketConn) WriteTo(p []byte, addr net.Addr) (int, error) {
	ua, ok := addr.(*net.UDPAddr)
	if !ok {
		return 0, netx.ErrNotAllowed
	}
	ap := ua.AddrPort()
	if !c.guard.allowed(ap.Addr()) {
		return 0, netx.ErrNotAllowed
	}
	return c.udp.WriteToUDPAddrPort(p, netip.AddrPortFrom(ap.Addr().WithZone("").Unmap(), ap.Port()))
}

// SetReadBuffer sets the socket's receive buffer size.
func (c *guardedPacketConn) SetReadBuffer(bytes int) error { return c.udp.SetReadBuffer(bytes) }

// SetWriteBuffer sets the socket's send buffer size.
func (c *guardedPacketConn) SetWriteBuffer(bytes int) error { return c.udp.SetWriteBuffer(bytes) }
