package sitediag

import (
	"context"

	"github.com/sitediag/sitediag/net/ping"
)

// HealthStatus is the state of one dependency.
type HealthStatus string

// The states a dependency can be in.
const (
	Healthy  HealthStatus = "healthy"
	Degraded HealthStatus = "degraded"
	Down     HealthStatus = "down"
)

// ServiceHealth is one dependency's state.
type ServiceHealth struct {
	Name    string       `json:"name"`
	Status  HealthStatus `json:"status"`
	Message string       `json:"message"`
}

// Health checks what the client depends on, each bounded by ctx: the DNS
// servers (service "resolver"), the ICMP sockets /ping and /mtr need
// (service "icmp") and the browser ("browser": down when Chromium is
// missing or does not start, degraded when jobs are waiting for a slot;
// a browser that has not started yet is not started) and Lighthouse
// ("lighthouse": down when Node, the package or Chromium is missing).
func (c *Client) Health(ctx context.Context) []ServiceHealth {
	resolver := ServiceHealth{Name: "resolver", Status: Healthy, Message: "DNS servers answer"}
	if err := c.resolver.Ping(ctx); err != nil {
		resolver.Status, resolver.Message = Down, "no DNS server answered"
	}
	st := c.browser.Status(ctx)
	b := ServiceHealth{Name: "browser", Status: Healthy, Message: st.Message}
	switch {
	case !st.Ready:
		b.Status = Down
	case st.Busy:
		b.Status = Degraded
	}
	lh := ServiceHealth{Name: "lighthouse", Status: Healthy}
	var ready bool
	if ready, lh.Message = c.lighthouse.Status(); !ready {
		lh.Status = Down
	}
	return []ServiceHealth{resolver, icmpHealth(ping.ICMPAccess(false)), b, lh}
}

// icmpHealth says what the ICMP access allows: raw sockets serve /ping
// and /mtr; without them /mtr fails and /ping uses what is left.
func icmpHealth(access ping.Access) ServiceHealth {
	h := ServiceHealth{Name: "icmp", Status: Healthy, Message: "raw ICMP sockets: /ping and /mtr use ICMP"}
	switch access {
	case ping.AccessUnprivileged:
		h.Status, h.Message = Degraded, "unprivileged ICMP sockets only: /ping uses ICMP, /mtr needs raw sockets (root or CAP_NET_RAW)"
	case ping.AccessNone:
		h.Status, h.Message = Degraded, "no ICMP sockets: /ping falls back to TCP connects, /mtr needs raw sockets (root or CAP_NET_RAW)"
	}
	return h
}
