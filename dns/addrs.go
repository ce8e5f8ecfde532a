package dns

import (
	"context"
	"fmt"
	"time"

	mdns "github.com/miekg/dns"
)

// exchangePair asks the first server for the A and AAAA records of name
// at once, over one UDP socket: the two questions a name lookup always
// asks, for one socket's set-up instead of two. It returns the answers
// it got that need nothing more (not truncated, not SERVFAIL or REFUSED,
// to the question asked), keyed by type; the caller asks the others the
// usual way with Exchange, with the returned context. When the server did
// not answer in time, it is remembered as dead in that context's memory,
// so Exchange asks the next one; when no other server is left to ask,
// the questions still open are in failed, with the timeout as their
// answer. err is the resolver's own failure (no servers).
func (r *Resolver) exchangePair(ctx context.Context, name string) (got map[uint16]*mdns.Msg, failed map[uint16]error, _ context.Context, err error) {
	servers, err := r.servers()
	if err != nil {
		return nil, nil, ctx, err
	}
	if deadServersOf(ctx) == nil {
		ctx = withDeadServers(ctx)
	}
	dead := deadServersOf(ctx)
	alive := dead.alive(servers)
	server := alive[0]
	asked := map[uint16]*mdns.Msg{}
	got = map[uint16]*mdns.Msg{}
	c := &mdns.Client{Net: "udp", Timeout: r.timeout(), UDPSize: ednsBufferSize}
	conn, err := c.DialContext(ctx, server)
	if err != nil {
		return got, nil, ctx, nil // Exchange meets and reports the same failure
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	deadline := time.Now().Add(r.timeout())
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	conn.SetDeadline(deadline)
	for _, qtype := range []uint16{mdns.TypeA, mdns.TypeAAAA} {
		msg := new(mdns.Msg)
		msg.SetQuestion(mdns.Fqdn(name), qtype)
		msg.SetEdns0(ednsBufferSize, false)
		if err := conn.WriteMsg(msg); err != nil {
			return got, nil, ctx, nil
		}
		asked[qtype] = msg
	}
	for len(asked) > 0 {
		resp, err := conn.ReadMsg()
		if err != nil {
			if ctx.Err() == nil && isTimeout(err) {
				dead.add(server)
				if len(alive) == 1 {
					failed = map[uint16]error{}
					for qtype := range asked {
						failed[qtype] = fmt.Errorf("%w: %w: %w", ErrNoAnswer, ErrTimeout, err)
					}
					return got, failed, ctx, nil
				}
			}
			return got, nil, ctx, nil
		}
		if len(resp.Question) != 1 {
			continue
		}
		msg := asked[resp.Question[0].Qtype]
		if msg == nil || resp.Id != msg.Id || !sameQuestion(resp.Question, msg.Question) {
			continue // not an answer to a question still open: keep waiting
		}
		delete(asked, resp.Question[0].Qtype)
		if !resp.Truncated && resp.Rcode != mdns.RcodeServerFailure && resp.Rcode != mdns.RcodeRefused {
			got[resp.Question[0].Qtype] = resp
		}
	}
	return got, nil, ctx, nil
}
