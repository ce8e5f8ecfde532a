package sitediag

import (
	"cmp"
	"context"
	"errors"

	"github.com/sitediag/sitediag/internal/neterr"
	"github.com/sitediag/sitediag/net/netx"
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
func (c *Client) Ping(ctx context.Context, rawTarget string, opts PingOptions) (_ *PingResult, err error) {
	ctx, end := c.startOp(ctx, "Ping", rawTarget, opts)
	defer end(&err)
	if err := c.resolve(&opts); err != nil {
		return nil, err
	}
	t, err := parseHostTarget(rawTarget, opts.ProxyCountry)
	if err != nil {
		return nil, err
	}
	opts.Count = cmp.Or(opts.Count, ping.DefaultCount)
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	pinned, err := c.pin(ctx, t)
	if err != nil {
		return nil, err
	}
	res, err := ping.Ping(ctx, pinned.Addr, ping.Options{Count: opts.Count, Dial: c.guard.DialLiteral, Allow: c.guard.Allowed})
	switch {
	case errors.Is(err, netx.ErrNotAllowed):
		return nil, notAllowed(err)
	case errors.Is(err, context.DeadlineExceeded):
		return nil, NewError(CodePingFailed, err, "the ping did not finish in time")
	case errors.Is(err, ping.ErrNoMethod):
		return nil, NewError(CodePingFailed, err, "no ICMP socket may be opened and TCP fallback is unavailable")
	case err != nil:
		return nil, NewError(CodePingFailed, err, "no request could be sent: %s", neterr.Why(err))
	}
	return &PingResult{Result: *res, Host: t.Display(), Settings: opts}, nil
}

// Ping calls Client.Ping on the default client.
func Ping(ctx context.Context, rawTarget string, opts PingOptions) (*PingResult, error) {
	return onDefault(ctx, rawTarget, opts, (*Client).Ping)
}
