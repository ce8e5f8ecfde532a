package guard

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"time"

	"github.com/sitediag/sitediag/net/netx"
)

// SOCKS5 (RFC 1928) with username/password authentication (RFC 1929),
// CONNECT only, to an IP literal: the proxy never resolves a name.
const (
	socksVersion    = 5
	socksNoAuth     = 0x00
	socksUserPass   = 0x02
	socksNoMethod   = 0xff
	socksConnect    = 0x01
	socksAddrIPv4   = 0x01
	socksAddrDomain = 0x03
	socksAddrIPv6   = 0x04
)

// socksReplies names the failure replies of RFC 1928 §6.
var socksReplies = map[byte]string{
	1: "general failure", 2: "connection not allowed by ruleset", 3: "network unreachable",
	4: "host unreachable", 5: "connection refused", 6: "TTL expired",
	7: "command not supported", 8: "address type not supported",
}

// socks5 opens a connection to target through the SOCKS5 proxy.
func (g *Guard) socks5(ctx context.Context, proxy *url.URL, target netip.AddrPort) (net.Conn, error) {
	conn, err := g.dialProxy(ctx, proxy)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	conn.SetDeadline(time.Now().Add(dialTimeout))
	if err := socksHandshake(conn, proxy.User, target); err != nil {
		conn.Close()
		var terr *TunnelError
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.As(err, &terr):
			return nil, err
		}
		return nil, &netx.ProxyError{Proxy: proxy.Host, Err: err}
	}
	if !stop() {
		conn.Close()
		return nil, ctx.Err()
	}
	conn.SetDeadline(time.Time{})
	return conn, nil
}

// socksHandshake negotiates authentication and sends CONNECT. A refused
// CONNECT is a *TunnelError; anything else is the proxy's fault.
func socksHandshake(rw io.ReadWriter, user *url.Userinfo, target netip.AddrPort) error {
	method := byte(socksNoAuth)
	if user != nil {
		method = socksUserPass
	}
	if _, err := rw.Write([]byte{socksVersion, 1, method}); err != nil {
		return err
	}
	var reply [2]byte
	if _, err := io.ReadFull(rw, reply[:]); err != nil {
		return err
	}
	if reply[0] != socksVersion || reply[1] == socksNoMethod || reply[1] != method {
		return errors.New("socks5: no acceptable authentication method")
	}
	if method == socksUserPass {
		name := user.Username()
		pass, _ := user.Password()
		if len(name) > 255 || len(pass) > 255 {
			return errors.New("socks5: user name or password longer than 255 bytes")
		}
		msg := append([]byte{1, byte(len(name))}, name...)
		msg = append(append(msg, byte(len(pass))), pass...)
		if _, err := rw.Write(msg); err != nil {
			return err
		}
		if _, err := io.ReadFull(rw, reply[:]); err != nil {
			return err
		}
		if reply[1] != 0 {
			return errors.New("socks5: authentication refused")
		}
	}
	addr := target.Addr()
	req := []byte{socksVersion, socksConnect, 0}
	if addr.Is4() {
		req = append(req, socksAddrIPv4)
	} else {
		req = append(req, socksAddrIPv6)
	}
	req = append(req, addr.AsSlice()...)
	req = binary.BigEndian.AppendUint16(req, target.Port())
	if _, err := rw.Write(req); err != nil {
		return err
	}
	var head [4]byte
	if _, err := io.ReadFull(rw, head[:]); err != nil {
		return err
	}
	if head[0] != socksVersion {
		return errors.New("socks5: malformed reply")
	}
	if head[1] != 0 {
		why, ok := socksReplies[head[1]]
		if !ok {
			why = fmt.Sprintf("reply %d", head[1])
		}
		return &TunnelError{Err: errors.New("socks5: " + why)}
	}
	// Skip the bound address and port.
	var skip int
	switch head[3] {
	case socksAddrIPv4:
		skip = 4 + 2
	case socksAddrIPv6:
		skip = 16 + 2
	case socksAddrDomain:
		var n [1]byte
		if _, err := io.ReadFull(rw, n[:]); err != nil {
			return err
		}
		skip = int(n[0]) + 2
	default:
		return errors.New("socks5: malformed reply")
	}
	_, err := io.CopyN(io.Discard, rw, int64(skip))
	return err
}
