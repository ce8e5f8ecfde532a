// Package guardnet hands the SSRF guard's filtering proxies to the
// packages that take a netx.Network: the browser pool and the
// Lighthouse runner.
package guardnet

import (
	"github.com/sitediag/sitediag/internal/proxygate"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/netx"
)

// Network is g as a netx.Network for a browser on this host: each
// proxy listens on a loopback port of its own and demands no
// credentials.
func Network(g *guard.Guard) netx.Network { return network{g} }

type network struct{ g *guard.Guard }

func (n network) ListenProxy(opts netx.ProxyOptions) (netx.Proxy, error) {
	p, err := n.g.ListenProxy(opts)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Gated is g as a netx.Network for browsers on other hosts: every
// proxy is served by gate, at the gate's URL, to the holder of
// credentials of its own (a netx.AuthProxy), until it is closed.
func Gated(g *guard.Guard, gate *proxygate.Gate) netx.Network { return gated{g, gate} }

type gated struct {
	g    *guard.Guard
	gate *proxygate.Gate
}

func (n gated) ListenProxy(opts netx.ProxyOptions) (netx.Proxy, error) {
	p, err := n.g.NewProxy(opts)
	if err != nil {
		return nil, err
	}
	creds, remove, err := n.gate.Add(p)
	if err != nil {
		p.Close()
		return nil, err
	}
	return &gatedProxy{Proxy: p, url: n.gate.URL(), creds: creds, remove: remove}, nil
}

// gatedProxy is a guard proxy behind the gate.
type gatedProxy struct {
	*guard.Proxy
	url    string
	creds  proxygate.Credentials
	remove func()
}

func (p *gatedProxy) URL() string { return p.url }

func (p *gatedProxy) Credentials() (username, password string) {
	return p.creds.Username, p.creds.Password
}

// Close takes the proxy off the gate, so its credentials are refused
// from then on, and closes it.
func (p *gatedProxy) Close() error {
	p.remove()
	return p.Proxy.Close()
}
