package dns

import (
	"context"
	"fmt"
	"net"
	"time"

	mdns "github.com/miekg/dns"
)

// addrTypes are the two questions of a name lookup, in the order their
// answers are merged.
func addrTypes() [2]uint16 { return [2]uint16{mdns.TypeA, mdns.TypeAAAA} }

// pairAnswers are what exchangePair got for each of addrTypes: an answer
// that needs nothing more, or the failure that ends the question; neither
// when the caller is to ask the usual way.
type pairAnswers struct {
	got    [2]*mdns.Msg
	failed [2]error
}

// exchangePair asks the first server for the A and AAAA records of name
// at once, over one UDP socket: the two questions a name lookup always
// asks, for one socket's set-up instead of two. It returns the answers
// it got that need nothing more (not truncated, not SERVFAIL or REFUSED,
// to the question asked); the caller asks the others the usual way with
// Exchange, with the returned context. When the server did not answer
// in time, it is remembered as dead in that context's memory, so
// Exchange asks the next one; when no other server is left to ask, the
// questions still open fail with the timeout as their answer. err is
// the resolver's own failure (no servers).
func (r *Resolver) exchangePair(ctx context.Context, name string) (_ pairAnswers, _ context.Context, err error) {
	var ans pairAnswers
	servers, err := r.servers()
	if err != nil {
		return ans, ctx, err
	}
	if deadServersOf(ctx) == nil {
		ctx = withDeadServers(ctx)
	}
	dead := deadServersOf(ctx)
	alive := dead.alive(servers)
	server := alive[0]
	conn, err := dialUDP(ctx, server)
	if err != nil {
		return ans, ctx, nil // Exchange meets and reports the same failure
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	deadline := time.Now().Add(r.timeout())
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	conn.SetDeadline(deadline)
	var asked [2]*mdns.Msg
	open := 0
	for i, qtype := range addrTypes() {
		msg := new(mdns.Msg)
		msg.SetQuestion(mdns.Fqdn(name), qtype)
		msg.SetEdns0(ednsBufferSize, false)
		if err := conn.WriteMsg(msg); err != nil {
			return ans, ctx, nil
		}
		asked[i] = msg
		open++
	}
	for open > 0 {
		resp, err := conn.ReadMsg()
		if err != nil {
			if ctx.Err() == nil && isTimeout(err) {
				dead.add(server)
				if len(alive) == 1 {
					for i, msg := range asked {
						if msg != nil {
							ans.failed[i] = fmt.Errorf("%w: %w: %w", ErrNoAnswer, ErrTimeout, err)
						}
					}
				}
			}
			return ans, ctx, nil
		}
		if len(resp.Question) != 1 {
			continue
		}
		i := 0
		if resp.Question[0].Qtype == mdns.TypeAAAA {
			i = 1
		}
		msg := asked[i]
		if msg == nil || resp.Id != msg.Id || !sameQuestion(resp.Question, msg.Question) {
			continue // not an answer to a question still open: keep waiting
		}
		asked[i] = nil
		open--
		if !resp.Truncated && resp.Rcode != mdns.RcodeServerFailure && resp.Rcode != mdns.RcodeRefused {
			ans.got[i] = resp
		}
	}
	return ans, ctx, nil
}

// dialUDP opens a UDP socket to server. With no dial timeout (a UDP
// socket connects at once), no context is made for one.
func dialUDP(ctx context.Context, server string) (*mdns.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "udp", server)
	if err != nil {
		return nil, err
	}
	return &mdns.Conn{Conn: conn, UDPSize: ednsBufferSize}, nil
}
