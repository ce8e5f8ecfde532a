package netx

import "net/url"

// Network is a browser's only way out: filtering HTTP proxies that every
// request of a page goes through, and that decide what may be reached.
// sitediag's Client passes its SSRF guard; an embedder may pass any
// proxy that applies its own policy.
//
// A proxy listens where the browser reaches it: on this host's loopback
// for a browser on this host, else on an address the remote browsers
// reach, where it must demand credentials (see AuthProxy) so that it is
// nobody else's way out.
type Network interface {
	// ListenProxy starts a proxy shaped by opts.
	ListenProxy(opts ProxyOptions) (Proxy, error)
}

// ProxyOptions shape one proxy. The zero value applies the Network's
// policy and connects directly.
type ProxyOptions struct {
	// Upstream is a proxy (http, https, socks5 or socks5h URL, with
	// optional user:password) that every allowed request is tunnelled
	// through, such as a country proxy: the target is resolved and
	// checked first and the upstream is asked for the checked address,
	// never the name. Nil means direct connections.
	Upstream *url.URL
	// Block, if set, refuses every host it returns true for, before the
	// host is resolved (ad and tracker lists), counted as blocked. Nil
	// blocks nothing.
	Block func(host string) bool
	// RefuseAll refuses every request: the browser-wide proxy, for
	// traffic that belongs to no job.
	RefuseAll bool
}

// Proxy is a running proxy of a Network.
type Proxy interface {
	// URL is the proxy's address for the browser's proxy setting
	// (http://127.0.0.1:port), without credentials.
	URL() string
	// Counts returns how many requests the policy refused and how many
	// ProxyOptions.Block refused so far.
	Counts() (refused, blocked int)
	// Failure returns why the last request to host:port was not served
	// (an error wrapping ErrNotAllowed or ErrBlocked, or the resolution
	// or dial error), or nil.
	Failure(host string, port uint16) error
	// Close stops the proxy and cuts its connections.
	Close() error
}

// AuthProxy is a Proxy that demands credentials (Basic) of every
// request, answering 407 without them. A browser job whose proxy is one
// answers the challenges of that proxy, and of no other party, with
// them.
type AuthProxy interface {
	Proxy
	// Credentials returns the username and password the proxy demands.
	Credentials() (username, password string)
}
