package sitediag

import (
	"net/http"
	"strings"
	"testing"
)

// TestBrowserProxySettings: BrowserProxyAddr puts the browser jobs'
// proxies behind a gate that answers 407 to a request without a live
// job's credentials; settings that cannot work are refused.
func TestBrowserProxySettings(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{BrowserProxyURL: "http://gate.internal:3128"}, "BrowserProxyURL needs BrowserProxyAddr"},
		{Config{BrowserProxyAddr: "0.0.0.0:0"}, "needs the URL browsers reach the gate at"},
		{Config{BrowserProxyAddr: "127.0.0.1:0", BrowserProxyURL: "ftp://gate.internal"}, "is not http://host[:port]"},
	} {
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v): %v, want an error with %q", c.cfg, err, c.want)
		}
	}
	c, err := New(Config{BrowserProxyAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req, _ := http.NewRequest(http.MethodGet, c.gate.URL(), nil)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusProxyAuthRequired {
		t.Errorf("a request to the gate without credentials: %d, want 407", resp.StatusCode)
	}
}
