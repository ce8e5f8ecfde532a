package sitediag

import (
	"cmp"
	"context"
	"errors"

	"github.com/sitediag/sitediag/net/ping"
)

// PingOptions are the options of Ping and the API's body of /ping. The
// zero value sends ping.DefaultCount (4) requests.
type PingOptions struct {
	// Count is the number of requests. Zero means ping.DefaultCount (4).
	Count int `json:"count" api:"min=1,max=16"`
	// ProxyCountry must be empty: pings cannot go through an HTTP proxy.
	ProxyCountry string `json:"proxyCountry"`
}

// PingReply is one answered request.
type PingReply = ping.Reply

// PingResult is the outcome of a ping; its JSON is the API's data
// (requests, loss, latency, min, max, avg, stdDev, ip, method, port,
// replies).
type PingResult struct {
	ping.Result
	// Host is the target's host, with a port when not the default.
	Host string `json:"-"`
	// Settings are the options the ping ran with, defaults filled in.
	Settings PingOptions `json:"-"`
}

// Ping sends echo requests to rawTarget (a URL, host name or IP literal),
// resolved once: ICMP when the process may open ICMP sockets, else TCP
// connects to port 443, then 80 (Method says which). Loss, even 100 %, is
// a result. Errors: CodeInvalidURL, CodeInvalidParameters,
// CodeTargetNotAllowed, CodeUnableToConnect (the name did not resolve),
// CodePingFailed (no request could be sent).
func (c *Client) Ping(ctx context.Context, rawTarget string, opts PingOptions) (*PingResult, error) {
	op := hostOp{name: "Ping", failed: CodePingFailed, work: "ping", unsent: "no request could be sent"}
	return runHost(ctx, c, rawTarget, &opts, &opts.ProxyCountry, op, func(ctx context.Context, t *pinnedTarget) (*PingResult, error) {
		opts.Count = cmp.Or(opts.Count, ping.DefaultCount)
		res, err := ping.Ping(ctx, t.Addr, ping.Options{Count: opts.Count, Dial: c.guard.DialLiteral, Allow: c.guard.Allowed})
		if errors.Is(err, ping.ErrNoMethod) {
			return nil, NewError(CodePingFailed, err, "no ICMP socket may be opened and TCP fallback is unavailable")
		}
		if err != nil {
			return nil, err
		}
		return &PingResult{Result: *res, Host: t.Display(), Settings: opts}, nil
	})
}

// Ping calls Client.Ping on the default client.
func Ping(ctx context.Context, rawTarget string, opts PingOptions) (*PingResult, error) {
	return onDefault(ctx, rawTarget, opts, (*Client).Ping)
}
