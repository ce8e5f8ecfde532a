package guard

import (
	"net/netip"
	"testing"
)

func TestPolicyBoundaries(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		// Each denied range at both edges, with its neighbours outside.
		{"0.0.0.0", false}, {"0.255.255.255", false}, {"1.0.0.0", true},
		{"9.255.255.255", true}, {"10.0.0.0", false}, {"10.255.255.255", false}, {"11.0.0.0", true},
		{"100.63.255.255", true}, {"100.64.0.0", false}, {"100.127.255.255", false}, {"100.128.0.0", true},
		{"126.255.255.255", true}, {"127.0.0.0", false}, {"127.0.0.1", false}, {"127.255.255.255", false}, {"128.0.0.0", true},
		{"169.253.255.255", true}, {"169.254.0.0", false}, {"169.254.169.254", false}, {"169.254.255.255", false}, {"169.255.0.0", true},
		{"172.15.255.255", true}, {"172.16.0.0", false}, {"172.31.255.255", false}, {"172.32.0.0", true},
		{"191.255.255.255", true}, {"192.0.0.0", false}, {"192.0.0.255", false}, {"192.0.1.0", true},
		{"192.0.1.255", true}, {"192.0.2.0", false}, {"192.0.2.255", false}, {"192.0.3.0", true},
		{"192.88.98.255", true}, {"192.88.99.0", false}, {"192.88.99.255", false}, {"192.88.100.0", true},
		{"192.167.255.255", true}, {"192.168.0.0", false}, {"192.168.255.255", false}, {"192.169.0.0", true},
		{"198.17.255.255", true}, {"198.18.0.0", false}, {"198.19.255.255", false}, {"198.20.0.0", true},
		{"198.51.99.255", true}, {"198.51.100.0", false}, {"198.51.100.255", false}, {"198.51.101.0", true},
		{"203.0.112.255", true}, {"203.0.113.0", false}, {"203.0.113.255", false}, {"203.0.114.0", true},
		{"223.255.255.255", true}, {"224.0.0.0", false}, {"239.255.255.255", false},
		{"240.0.0.0", false}, {"255.255.255.254", false}, {"255.255.255.255", false},
		{"168.63.129.15", true}, {"168.63.129.16", false}, {"168.63.129.17", true},
		{"8.8.8.8", true}, {"93.184.216.34", true},

		// IPv6: only 2000::/3, minus its special blocks.
		{"::", false}, {"::1", false}, {"1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},
		{"2000::", true}, {"3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true}, {"4000::", false},
		{"2001::", false}, {"2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", false}, {"2001:200::", true},
		{"2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", true}, {"2001:db8::", false},
		{"2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", false}, {"2001:db9::", true},
		{"2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
		{"2002::", false}, {"2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false}, {"2003::", true},
		{"2606:4700:4700::1111", true},
		{"fc00::1", false}, {"fd12:3456::1", false}, {"fe80::1", false}, {"fec0::1", false}, {"ff02::1", false},
		{"100::1", false}, {"64:ff9b::808:808", false}, {"64:ff9b:1::1", false},

		// 169.254.169.254 in every IPv6 disguise.
		{"::ffff:169.254.169.254", false},               // IPv4-mapped
		{"::a9fe:a9fe", false},                          // IPv4-compatible (::/96)
		{"64:ff9b::a9fe:a9fe", false},                   // NAT64 well-known prefix
		{"64:ff9b:1::a9fe:a9fe", false},                 // NAT64 local-use prefix
		{"2002:a9fe:a9fe::1", false},                    // 6to4
		{"2001:0:4136:e378:8000:63bf:5601:5601", false}, // Teredo (client 169.254.169.254, obfuscated)
		{"::ffff:8.8.8.8", true},                        // a mapped public address is judged as IPv4
		{"::ffff:127.0.0.1", false},
		{"fe80::1%eth0", false},
		{"2606:4700::1%eth0", true},
	}
	var p Policy
	for _, tt := range tests {
		addr := netip.MustParseAddr(tt.addr)
		if got := p.Allowed(addr); got != tt.want {
			t.Errorf("Allowed(%s) = %v, want %v", tt.addr, got, tt.want)
		}
	}
	if p.Allowed(netip.Addr{}) {
		t.Error("the zero Addr is allowed")
	}
}

func TestPolicyAllowList(t *testing.T) {
	p := NewPolicy([]netip.Prefix{
		netip.MustParsePrefix("127.0.0.1/32"),
		netip.MustParsePrefix("10.1.2.3/16"), // unmasked on purpose
		netip.MustParsePrefix("fd00::/64"),
	})
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1", true},
		{"::ffff:127.0.0.1", true},
		{"127.0.0.2", false},
		{"10.1.0.0", true},
		{"10.1.255.255", true},
		{"10.2.0.0", false},
		{"fd00::5", true},
		{"fd00:0:0:1::5", false},
		{"169.254.169.254", false},
	}
	for _, tt := range tests {
		if got := p.Allowed(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("Allowed(%s) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}
