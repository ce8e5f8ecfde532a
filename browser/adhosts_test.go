package browser

import "testing"

func TestIsAdHost(t *testing.T) {
	for host, want := range map[string]bool{
		"doubleclick.net":               true,
		"ad.doubleclick.net":            true,
		"Stats.G.DoubleClick.Net.":      true,
		"www.googletagmanager.com":      true,
		"connect.facebook.net":          true,
		"facebook.net":                  false,
		"www.facebook.com":              false,
		"notdoubleclick.net":            false,
		"doubleclick.net.example.com":   false,
		"example.com":                   false,
		"cdn.taboola.com":               true,
		"static.hotjar.com":             true,
		"fonts.googleapis.com":          false,
		"imasdk.googleapis.com":         true,
		"pagead2.googlesyndication.com": true,
	} {
		if got := IsAdHost(host); got != want {
			t.Errorf("IsAdHost(%q) = %v, want %v", host, got, want)
		}
	}
}
