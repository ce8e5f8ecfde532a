package tls

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"net"
)

// Heartbleed is the Heartbleed verdict (CVE-2014-0160) and whether the
// server offers heartbeats at all.
type Heartbleed struct {
	Finding
	// Heartbeat is true when the ServerHello carried the heartbeat
	// extension (RFC 6520), false when it did not, null when it was not
	// tested (no version from TLS 1.0 to TLS 1.2).
	Heartbeat *bool `json:"heartbeat"`
}

// The Heartbleed probe sends heartbeatPayload bytes and claims
// heartbeatOverRead more: a vulnerable server echoes bytes from beyond
// the request, a few only; a fixed one drops the request (RFC 6520 §4).
const (
	heartbeatPayload  = 16
	heartbeatOverRead = 16

	heartbeatRequest  = 1
	heartbeatResponse = 2
)

// heartbleed sends a hello with the heartbeat extension at the newest
// version from TLS 1.0 to TLS 1.2 and, when the server accepts
// heartbeats, two heartbeat requests before the handshake goes on, as
// testssl.sh does: one that claims heartbeatOverRead bytes more than it
// carries, then a well-formed one. A server that answers the first with
// more than it was sent is vulnerable; a fixed one answers only the
// second.
func (s *scanner) heartbleed(ctx context.Context) Heartbleed {
	v, f := s.legacyCheck()
	hb := Heartbleed{Finding: f}
	if v == 0 {
		return hb
	}
	h := hello{version: v, suites: suitesFor(false), serverName: s.serverName, heartbeat: true}
	err := s.converse(ctx, h, readNeeds{}, func(conn net.Conn, rep *reply) error {
		hb.Heartbeat = ptr(rep.heartbeat)
		hb.tested(false)
		if !rep.heartbeat {
			return nil
		}
		if _, err := conn.Write(heartbeatRequests(v)); err != nil {
			return err
		}
		if n := heartbeatAnswer(conn); n > heartbeatPayload {
			hb.tested(true)
			hb.Evidence = []string{fmt.Sprintf("%s heartbeat request of %d bytes claiming %d answered with %d: %d bytes read beyond the request",
				versionName(v), heartbeatPayload, heartbeatPayload+heartbeatOverRead, n, n-heartbeatPayload)}
		}
		return nil
	})
	switch {
	case s.cutShort(ctx, "heartbleed", err):
		hb.Heartbeat = nil
		hb.notTested("not finished: the deadline came, or the probe went unanswered")
	case hb.Vulnerable == nil:
		hb.notTested("the hello with the heartbeat extension was refused: " + classify(err, s.opts.ProbeTimeout).reason)
	}
	return hb
}

// heartbeatRequests are the two heartbeat records the probe sends: the
// one claiming more than it carries, then a well-formed one with its
// 16 bytes of padding.
func heartbeatRequests(v uint16) []byte {
	payload := make([]byte, heartbeatPayload)
	rand.Read(payload)
	bad := binary.BigEndian.AppendUint16([]byte{heartbeatRequest}, heartbeatPayload+heartbeatOverRead)
	good := binary.BigEndian.AppendUint16([]byte{heartbeatRequest}, heartbeatPayload)
	good = append(append(good, payload...), make([]byte, 16)...)
	return appendRecord(appendRecord(nil, recordHeartbeat, v, append(bad, payload...)), recordHeartbeat, v, good)
}

// heartbeatAnswer reads the server's first heartbeat response and
// returns the payload length it carries; 0 when an alert, another
// record, the connection's end or silence came first.
func heartbeatAnswer(r io.Reader) int {
	typ, fragment, err := readRecord(r)
	if err != nil || typ != recordHeartbeat || len(fragment) < 3 || fragment[0] != heartbeatResponse {
		return 0
	}
	return int(binary.BigEndian.Uint16(fragment[1:]))
}
