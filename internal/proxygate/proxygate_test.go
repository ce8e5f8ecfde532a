package proxygate

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// get asks the gate for target with creds (none when nil) and returns
// the status and body.
func get(t *testing.T, g *Gate, creds *Credentials, target string) (int, string) {
	t.Helper()
	proxy, _ := url.Parse(g.URL())
	if creds != nil {
		proxy.User = url.UserPassword(creds.Username, creds.Password)
	}
	tr := &http.Transport{Proxy: http.ProxyURL(proxy)}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(target)
	if err != nil {
		t.Fatalf("GET %s through the gate: %v", target, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// named answers with its name and the Proxy-Authorization it was given.
func named(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, name+" "+r.Header.Get("Proxy-Authorization"))
	})
}

func listen(t *testing.T) *Gate {
	t.Helper()
	g, err := Listen("127.0.0.1:0", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// TestRoutes hands each request to the proxy whose credentials it
// carries, without them, and answers 407 to everything else, removed
// credentials included.
func TestRoutes(t *testing.T) {
	g := listen(t)
	a, removeA, err := g.Add(named("A"))
	if err != nil {
		t.Fatal(err)
	}
	b, removeB, err := g.Add(named("B"))
	if err != nil {
		t.Fatal(err)
	}
	defer removeB()
	if a == b || len(a.Username) != 32 || len(a.Password) != 32 {
		t.Fatalf("credentials %+v and %+v: want two different pairs of 128 random bits", a, b)
	}
	const target = "http://target.test/x"
	for _, c := range []struct {
		name  string
		creds *Credentials
		want  string
	}{
		{"A's", &a, "A "},
		{"B's", &b, "B "},
		{"none", nil, ""},
		{"A's user with B's password", &Credentials{a.Username, b.Password}, ""},
		{"an unknown user", &Credentials{"nobody", a.Password}, ""},
		{"empty", &Credentials{}, ""},
	} {
		status, body := get(t, g, c.creds, target)
		switch {
		case c.want != "" && (status != http.StatusOK || body != c.want):
			t.Errorf("%s credentials: got %d %q, want 200 %q", c.name, status, body, c.want)
		case c.want == "" && status != http.StatusProxyAuthRequired:
			t.Errorf("%s credentials: got %d %q, want 407", c.name, status, body)
		}
	}

	removeA()
	removeA()
	if status, _ := get(t, g, &a, target); status != http.StatusProxyAuthRequired {
		t.Errorf("removed credentials: got %d, want 407", status)
	}
	if status, body := get(t, g, &b, target); status != http.StatusOK || body != "B " {
		t.Errorf("B's credentials after A's removal: got %d %q, want 200 %q", status, body, "B ")
	}
}

// TestChallenge is what a browser needs to answer: a Basic challenge.
func TestChallenge(t *testing.T) {
	g := listen(t)
	req, _ := http.NewRequest(http.MethodGet, g.URL(), nil)
	req.Header.Set("Proxy-Authorization", "Basic !!!")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, want := resp.Header.Get("Proxy-Authenticate"), `Basic realm="sitediag"`; resp.StatusCode != http.StatusProxyAuthRequired || got != want {
		t.Errorf("malformed credentials: got %d, Proxy-Authenticate %q; want 407, %q", resp.StatusCode, got, want)
	}
}

// TestRemoveEndsRequests ends the requests a proxy is serving when its
// credentials are removed.
func TestRemoveEndsRequests(t *testing.T) {
	g := listen(t)
	started, ended := make(chan struct{}), make(chan struct{})
	creds, remove, err := g.Add(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
		close(ended)
	}))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		<-started
		remove()
	}()
	proxy, _ := url.Parse(g.URL())
	proxy.User = url.UserPassword(creds.Username, creds.Password)
	tr := &http.Transport{Proxy: http.ProxyURL(proxy)}
	defer tr.CloseIdleConnections()
	if resp, err := (&http.Client{Transport: tr}).Get("http://target.test/"); err == nil {
		resp.Body.Close()
	}
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the request went on after its credentials were removed")
	}
}

func TestListen(t *testing.T) {
	for _, c := range []struct {
		addr, advertise, want string
	}{
		{"0.0.0.0:0", "", "needs the URL"},
		{"127.0.0.1:0", "http://gate.internal:3128", "http://gate.internal:3128"},
		{"127.0.0.1:0", "http://gate.internal", "http://gate.internal:"},
		{"127.0.0.1:0", "http://u:p@gate.internal:3128", "is not http://host[:port]"},
		{"127.0.0.1:0", "https://gate.internal:3128", "is not http://host[:port]"},
		{"127.0.0.1:0", "http://gate.internal:3128/path", "is not http://host[:port]"},
	} {
		g, err := Listen(c.addr, c.advertise)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = g.URL()
			g.Close()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("Listen(%q, %q): got %q, want %q in it", c.addr, c.advertise, got, c.want)
		}
	}
	g := listen(t)
	g.Close()
	if _, _, err := g.Add(named("late")); err == nil {
		t.Error("Add on a closed gate: no error")
	}
	if err := g.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
