package sitediag_test

import (
	"fmt"

	"github.com/sitediag/sitediag"
)

// ConfigFrom reads the SITEDIAG_* settings from any lookup; ConfigFromEnv
// is the same on the process's environment.
func ExampleConfigFrom() {
	settings := map[string]string{
		"SITEDIAG_ALLOW_NETWORKS": "127.0.0.1/32",
		"SITEDIAG_DNS_SERVERS":    "127.0.0.1:5353",
	}
	cfg, err := sitediag.ConfigFrom(func(name string) string { return settings[name] })
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.AllowNetworks, cfg.DNSServers)
	// Output: [127.0.0.1/32] [127.0.0.1:5353]
}
