package sitediag

import (
	"context"
	"os"
	"testing"

	"github.com/sitediag/sitediag/net/ping"
)

func TestICMPHealth(t *testing.T) {
	tests := []struct {
		access ping.Access
		status HealthStatus
	}{
		{ping.AccessRaw, Healthy},
		{ping.AccessUnprivileged, Degraded},
		{ping.AccessNone, Degraded},
	}
	for _, tt := range tests {
		h := icmpHealth(tt.access)
		if h.Name != "icmp" || h.Status != tt.status || h.Message == "" {
			t.Errorf("icmpHealth(%v) = %+v, want icmp %s with a message", tt.access, h, tt.status)
		}
	}
}

func TestHealthListsICMP(t *testing.T) {
	c, err := New(Config{DNSServers: []string{"127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the resolver check need not wait
	var icmp *ServiceHealth
	for _, s := range c.Health(ctx) {
		if s.Name == "icmp" {
			icmp = &s
		}
	}
	if icmp == nil {
		t.Fatal("no icmp entry")
	}
	if os.Geteuid() == 0 && icmp.Status != Healthy {
		t.Errorf("as root: %+v, want healthy", icmp)
	}
}
