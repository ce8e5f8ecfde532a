package httpapi_test

import (
	"bufio"
	"github.com/sitediag/sitediag/net/portscan"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/porttest"
)

func portList(ports ...uint16) string {
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = strconv.Itoa(int(p))
	}
	return strings.Join(s, ",")
}

func numbers(t *testing.T, v any) []uint16 {
	t.Helper()
	arr, ok := v.([]any)
	if !ok {
		t.Fatalf("data is %T (%v), want an array", v, v)
	}
	out := make([]uint16, len(arr))
	for i, x := range arr {
		f, ok := x.(float64)
		if !ok {
			t.Fatalf("data[%d] is %T, want a number", i, x)
		}
		out[i] = uint16(f)
	}
	return out
}

func TestOpenPort(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	api.DNS.Add(t, "site.test. 60 IN A 127.0.0.1")
	a := porttest.Listen(t, porttest.Silent).Port
	b := porttest.Listen(t, porttest.Silent).Port
	closed := porttest.Closed(t)
	lo, hi := min(a, b), max(a, b)
	ranges := " " + portList(hi, closed) + " , " + strconv.Itoa(int(lo)) + "-" + strconv.Itoa(int(lo))

	for _, target := range []string{"127.0.0.1", "site.test", "http://site.test:8080/path"} {
		t.Run(target, func(t *testing.T) {
			resp := api.Post(t, "/openport", map[string]any{"url": target, "portRanges": ranges})
			meta, data := resp.WantSuccess(t)
			if got := numbers(t, data); len(got) != 2 || got[0] != lo || got[1] != hi {
				t.Fatalf("data = %v, want [%d %d]", got, lo, hi)
			}
			wantURL := map[string]string{"127.0.0.1": "127.0.0.1", "site.test": "site.test", "http://site.test:8080/path": "site.test:8080"}[target]
			if meta["url"] != wantURL || meta["ip"] != "127.0.0.1" || meta["portRanges"] != ranges || meta["detectServices"] != false {
				t.Errorf("meta = %v, want url %s, ip, portRanges echoed", meta, wantURL)
			}
			if meta["topPorts"] != 0.0 || meta["concurrency"] != float64(portscan.DefaultConcurrency) || meta["portTimeout"] != portscan.DefaultTimeout.Seconds() {
				t.Errorf("meta = %v, want topPorts 0 with portRanges, and the default concurrency and port timeout", meta)
			}
			if _, ok := resp.Envelope["services"]; ok {
				t.Errorf("services present without detectServices: %s", resp.Body)
			}
		})
	}
	t.Run("default top ports", func(t *testing.T) {
		meta, data := api.Post(t, "/openport", map[string]any{"url": "127.0.0.1"}).WantSuccess(t)
		numbers(t, data)
		if meta["topPorts"] != float64(100) {
			t.Errorf("meta.topPorts = %v, want 100", meta["topPorts"])
		}
	})
}

func TestOpenPortDetectServices(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	ssh := porttest.Listen(t, func(c net.Conn) {
		c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
		bufio.NewReader(c).ReadString('\n')
	}).Port
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Server", "nginx/1.27.0")
	}))
	defer web.Close()
	webPort := uint16(web.Listener.Addr().(*net.TCPAddr).Port)
	resp := api.Post(t, "/openport", map[string]any{"url": "127.0.0.1", "portRanges": portList(ssh, webPort), "detectServices": true})
	meta, _ := resp.WantSuccess(t)
	if meta["detectServices"] != true {
		t.Errorf("meta.detectServices = %v", meta["detectServices"])
	}
	services, ok := resp.Envelope["services"].([]any)
	if !ok || len(services) != 2 {
		t.Fatalf("services = %v, want two entries", resp.Envelope["services"])
	}
	want := map[uint16][3]string{ssh: {"ssh", "OpenSSH", "9.6"}, webPort: {"http", "nginx", "1.27.0"}}
	for _, s := range services {
		m := s.(map[string]any)
		port := uint16(m["port"].(float64))
		svc := m["service"].(map[string]any)
		w := want[port]
		if m["state"] != "open" || svc["name"] != w[0] || svc["product"] != w[1] || svc["version"] != w[2] || svc["tls"] != false {
			t.Errorf("port %d: %v, want %v", port, m, w)
		}
	}
}

func TestOpenPortErrors(t *testing.T) {
	wantErrors(t, apitest.New(t, apitest.Options{}), []errorCase{
		{"no url", "/openport", map[string]any{}, 400, sitediag.CodeInvalidURL, ""},
		{"bad scheme", "/openport", map[string]any{"url": "ftp://site.test"}, 400, sitediag.CodeInvalidURL, ""},
		{"numeric host", "/openport", map[string]any{"url": "127.1"}, 400, sitediag.CodeInvalidURL, ""},
		{"top ports not offered", "/openport", map[string]any{"url": "127.0.0.1", "topPorts": 7}, 400, sitediag.CodeInvalidParameters, "topPorts"},
		{"both lists", "/openport", map[string]any{"url": "127.0.0.1", "topPorts": 50, "portRanges": "80"}, 400, sitediag.CodeInvalidParameters, "topPorts"},
		{"range down", "/openport", map[string]any{"url": "127.0.0.1", "portRanges": "80,100-90"}, 400, sitediag.CodeInvalidParameters, `"100-90"`},
		{"port zero", "/openport", map[string]any{"url": "127.0.0.1", "portRanges": "0"}, 400, sitediag.CodeInvalidParameters, "1-65535"},
		{"too many", "/openport", map[string]any{"url": "127.0.0.1", "portRanges": "1-6000"}, 400, sitediag.CodeInvalidParameters, "5000"},
		{"proxy", "/openport", map[string]any{"url": "127.0.0.1", "proxyCountry": "us"}, 400, sitediag.CodeInvalidParameters, "proxy"},
		{"wrong type", "/openport", map[string]any{"url": "127.0.0.1", "portRanges": 80}, 400, sitediag.CodeInvalidParameters, "portRanges"},
		{"unknown field", "/openport", map[string]any{"url": "127.0.0.1", "ports": "80"}, 400, sitediag.CodeInvalidParameters, "ports"},
		{"unresolvable", "/openport", map[string]any{"url": "missing.test", "portRanges": "80"}, 422, sitediag.CodeUnableToConnect, "name not resolved"},
	})
}

func TestOpenPortRefusedTarget(t *testing.T) {
	// Only a documentation range is exempt: loopback stays refused.
	api := apitest.New(t, apitest.Options{Allow: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}})
	api.DNS.Add(t, "inside.test. 60 IN A 127.0.0.1")
	ln := porttest.Listen(t, porttest.Silent)
	for _, target := range []string{"127.0.0.1", "inside.test", "[::1]"} {
		resp := api.Post(t, "/openport", map[string]any{"url": target, "portRanges": portList(ln.Port)})
		resp.WantError(t, 403, sitediag.CodeTargetNotAllowed)
	}
	if n := ln.Accepted(); n != 0 {
		t.Fatalf("the refused target accepted %d connections", n)
	}
}
