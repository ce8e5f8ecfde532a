package tls

import (
	"bytes"
	"context"
	"encoding/binary"
	"net"
)

// Record content types beyond the handshake and alert ones.
const (
	recordChangeCipherSpec = 20
	recordHeartbeat        = 24
)

// appendRecord appends one TLS record of type typ carrying payload.
func appendRecord(dst []byte, typ uint8, version uint16, payload []byte) []byte {
	dst = append(dst, typ)
	dst = binary.BigEndian.AppendUint16(dst, version)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(payload)))
	return append(dst, payload...)
}

// converse opens a connection, sends h, reads the server's flight
// through ServerHelloDone and hands the connection to next. A refusal,
// an answer with another version, or ctx's end is an error.
func (s *scanner) converse(ctx context.Context, h hello, needs readNeeds, next func(conn net.Conn, rep *reply) error) error {
	return s.withConn(ctx, func(_ context.Context, conn net.Conn) error {
		if _, err := conn.Write(h.marshal()); err != nil {
			return err
		}
		needs.flight = true
		rep, err := readReply(conn, needs)
		switch {
		case err != nil:
			return err
		case rep.version != h.version:
			return errMalformed
		}
		return next(conn, rep)
	})
}

// recordingConn keeps what is read from a connection, up to maxReply
// bytes: the server's first flight, in clear before TLS 1.3; and, with
// recordWrites, what is written.
type recordingConn struct {
	net.Conn
	read, written bytes.Buffer
	recordWrites  bool
}

func (c *recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.read.Len() < maxReply {
		c.read.Write(p[:n])
	}
	return n, err
}

func (c *recordingConn) Write(p []byte) (int, error) {
	if c.recordWrites && c.written.Len() < maxReply {
		c.written.Write(p)
	}
	return c.Conn.Write(p)
}

// serverHello parses the ServerHello among what was read.
func (c *recordingConn) serverHello() (*reply, error) {
	return readReply(bytes.NewReader(c.read.Bytes()), readNeeds{})
}
