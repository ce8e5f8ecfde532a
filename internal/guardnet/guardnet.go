// Package guardnet hands the SSRF guard's filtering proxies to the
// packages that take a browser.Network: the browser pool and the
// Lighthouse runner.
package guardnet

import (
	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/internal/guard"
)

// Network is g as a browser.Network.
func Network(g *guard.Guard) browser.Network { return network{g} }

type network struct{ g *guard.Guard }

func (n network) ListenProxy(opts browser.ProxyOptions) (browser.Proxy, error) {
	p, err := n.g.ListenProxy(guard.ProxyOptions(opts))
	if err != nil {
		return nil, err
	}
	return p, nil
}
