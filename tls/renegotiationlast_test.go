package tls

import (
	"bytes"
	"context"
	"net"
	"sync"
	"testing"
	"time"
)

// openCounter counts a scan's open connections and notes, for the one
// that renegotiates, how many others were open when it was dialled.
type openCounter struct {
	mu        sync.Mutex
	open      int
	reneg     int
	renegSeen bool
}

type countedConn struct {
	net.Conn
	c         *openCounter
	othersAt  int
	written   bytes.Buffer
	closeOnce sync.Once
}

func (cc *countedConn) Write(p []byte) (int, error) {
	cc.written.Write(p)
	return cc.Conn.Write(p)
}

func (cc *countedConn) Close() error {
	cc.closeOnce.Do(func() {
		cc.c.mu.Lock()
		defer cc.c.mu.Unlock()
		cc.c.open--
		// The renegotiating connection writes two handshake records after
		// its ChangeCipherSpec: the Finished, then the new hello.
		r := bytes.NewReader(cc.written.Bytes())
		afterCCS, handshakes := false, 0
		for {
			typ, _, err := readRecord(r)
			if err != nil {
				break
			}
			if typ == recordChangeCipherSpec {
				afterCCS = true
			} else if afterCCS && typ == recordHandshake {
				handshakes++
			}
		}
		if handshakes >= 2 {
			cc.c.renegSeen, cc.c.reneg = true, cc.othersAt
		}
	})
	return cc.Conn.Close()
}

// TestRenegotiationProbeRunsAlone: s_server serves one connection at a
// time and sleeps a second after refusing a renegotiation (its
// www_body's OSSL_sleep(1000)); every probe queued behind it waited
// that second, which made eleven of the bench's configurations take
// 1.1 s. The renegotiation probe now runs when no other probe is open.
func TestRenegotiationProbeRunsAlone(t *testing.T) {
	f := needOpenSSL(t)
	addr := f.startSServer(t)
	counter := &openCounter{}
	dial := func(ctx context.Context, network, address string) (net.Conn, error) {
		conn, err := dialer(addr)(ctx, network, address)
		if err != nil {
			return nil, err
		}
		counter.mu.Lock()
		defer counter.mu.Unlock()
		cc := &countedConn{Conn: conn, c: counter, othersAt: counter.open}
		counter.open++
		return cc, nil
	}
	res, err := Scan(context.Background(), dial, "real.test", Options{Roots: f.rootPool, Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	if !counter.renegSeen || res.Vulnerabilities.Renegotiation.ClientInitiated == nil {
		t.Fatalf("no renegotiation probe seen (%+v)", res.Vulnerabilities.Renegotiation)
	}
	if counter.reneg != 0 {
		t.Errorf("the renegotiation probe was dialled with %d other probes open, want none", counter.reneg)
	}
}
