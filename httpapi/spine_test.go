package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mdns "github.com/miekg/dns"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/blobstore"
	"github.com/sitediag/sitediag/httpapi"
	"github.com/sitediag/sitediag/internal/apitest"
)

// countingListener listens on addr and counts the connections it gets.
func countingListener(t *testing.T, addr string) (port string, conns *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	conns = &atomic.Int32{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port, conns
}

func redirectTo(location string) string {
	return "HTTP/1.1 302 Found\r\nLocation: " + location + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
}

func TestUp(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	api.DNS.Add(t, "site.test. 60 IN A 127.0.0.1")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			http.Redirect(w, r, "/final", http.StatusMovedPermanently)
			return
		}
		w.WriteHeader(http.StatusTeapot)
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	base := "http://site.test:" + port

	t.Run("follows redirects", func(t *testing.T) {
		resp := api.Post(t, "/up", map[string]any{"url": base + "/"})
		meta, data := resp.WantSuccess(t)
		if resp.Envelope["message"] != "Site is up" {
			t.Errorf("message = %v", resp.Envelope["message"])
		}
		delete(meta, "test")
		want := map[string]any{"url": "site.test:" + port, "proxyCountry": "", "followRedirect": true, "redirectedURL": base + "/final"}
		if diff := cmp.Diff(want, meta); diff != "" {
			t.Errorf("meta (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[string]any{"statusCode": 418.0, "reasonPhrase": "I'm a teapot"}, data); diff != "" {
			t.Errorf("data (-want +got):\n%s", diff)
		}
	})
	t.Run("first response only", func(t *testing.T) {
		resp := api.Post(t, "/up", map[string]any{"url": base, "followRedirect": false})
		meta, data := resp.WantSuccess(t)
		if meta["followRedirect"] != false || meta["redirectedURL"] != base+"/" {
			t.Errorf("meta = %v", meta)
		}
		if diff := cmp.Diff(map[string]any{"statusCode": 301.0, "reasonPhrase": "Moved Permanently"}, data); diff != "" {
			t.Errorf("data (-want +got):\n%s", diff)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		_, closedPort, _ := net.SplitHostPort(ln.Addr().String())
		ln.Close() // now the port refuses
		for url, why := range map[string]string{
			"http://site.test:" + closedPort + "/": "connection refused",
			"http://nowhere.test/":                 "name not resolved",
		} {
			resp := api.Post(t, "/up", map[string]any{"url": url})
			_, data := resp.WantSuccess(t)
			if resp.Envelope["message"] != "Unable to reach the URL." {
				t.Errorf("%s: message = %v", url, resp.Envelope["message"])
			}
			if diff := cmp.Diff(map[string]any{"statusCode": 0.0, "reasonPhrase": why}, data); diff != "" {
				t.Errorf("%s: data (-want +got):\n%s", url, diff)
			}
		}
	})
}

func TestRedirectCheck(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	api.DNS.Add(t, "site.test. 60 IN A 127.0.0.1")
	p := rawServer(t, func(port string) map[string]string {
		return map[string]string{
			"/": "HTTP/1.1 301 Moved Permanently\r\nX-Zeta: 1\r\nLocation: /step?x=1\r\nSet-Cookie: a=1\r\n" +
				"Set-Cookie: b=2\r\nAlpha: first\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
			"/step": "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 307 Temporary Redirect\r\nlocation: http://site.test:" + port + "/end\r\n" +
				"Content-Length: 0\r\nConnection: close\r\n\r\n",
			"/end": "HTTP/1.1 200 OK\r\nServer: fixture\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
		}
	})
	base := "http://site.test:" + p
	resp := api.Post(t, "/redirectcheck", map[string]any{"url": base})
	meta, data := resp.WantSuccess(t)
	delete(meta, "test")
	if diff := cmp.Diff(map[string]any{"url": "site.test:" + p, "proxyCountry": ""}, meta); diff != "" {
		t.Errorf("meta (-want +got):\n%s", diff)
	}
	h := func(kv ...string) []any {
		var out []any
		for i := 0; i < len(kv); i += 2 {
			out = append(out, map[string]any{"name": kv[i], "value": kv[i+1]})
		}
		return out
	}
	want := []any{
		map[string]any{"url": base + "/", "status": 301.0, "headers": h("x-zeta", "1", "location", "/step?x=1",
			"set-cookie", "a=1", "set-cookie", "b=2", "alpha", "first", "content-length", "0", "connection", "close")},
		map[string]any{"url": base + "/step?x=1", "status": 307.0, "headers": h("location", base+"/end",
			"content-length", "0", "connection", "close")},
		map[string]any{"url": base + "/end", "status": 200.0, "headers": h("server", "fixture", "content-type", "text/plain",
			"content-length", "2", "connection", "close")},
	}
	if diff := cmp.Diff(want, data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
}

// rawServer answers each request on 127.0.0.1 with the canned response
// for its path, written byte for byte, and closes the connection. The
// responses are built from the server's own port.
func rawServer(t *testing.T, responses func(port string) map[string]string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	table := responses(port)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				conn.SetDeadline(time.Now().Add(5 * time.Second))
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				resp, ok := table[req.URL.Path]
				if !ok {
					resp = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
				}
				conn.Write([]byte(resp))
			}()
		}
	}()
	return port
}

func TestRedirectLimits(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	api.DNS.Add(t, "site.test. 60 IN A 127.0.0.1")
	port := rawServer(t, func(port string) map[string]string {
		m := map[string]string{
			"/loop-a": redirectTo("/loop-b"),
			"/loop-b": redirectTo("http://site.test:" + port + "/loop-a"),
		}
		for i := range 15 {
			m["/hop"+strconv.Itoa(i)] = redirectTo("/hop" + strconv.Itoa(i+1))
		}
		m["/hop15"] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
		for i := range 10 {
			m["/ten"+strconv.Itoa(i)] = redirectTo("/ten" + strconv.Itoa(i+1))
		}
		m["/ten10"] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
		return m
	})
	base := "http://site.test:" + port
	for _, path := range []string{"/up", "/redirectcheck"} {
		for _, start := range []string{"/loop-a", "/hop0"} {
			api.Post(t, path, map[string]any{"url": base + start}).WantError(t, 429, sitediag.CodeTooManyRedirects)
		}
	}
	// Exactly ten redirects is still fine.
	resp := api.Post(t, "/redirectcheck", map[string]any{"url": base + "/ten0"})
	if _, data := resp.WantSuccess(t); len(data.([]any)) != 11 {
		t.Errorf("got %d hops for 10 redirects, want 11", len(data.([]any)))
	}
}

// TestRedirectToRefusedAddress: a hop to an address outside the allow
// list is refused, and nothing reaches that address.
func TestRedirectToRefusedAddress(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	api.DNS.Add(t, "site.test. 60 IN A 127.0.0.1", "inside.test. 60 IN A 127.0.0.2")
	refusedPort, conns := countingListener(t, "127.0.0.2:0")
	port := rawServer(t, func(string) map[string]string {
		return map[string]string{
			"/literal": redirectTo("http://127.0.0.2:" + refusedPort + "/"),
			"/name":    redirectTo("http://inside.test:" + refusedPort + "/"),
		}
	})
	for _, path := range []string{"/up", "/redirectcheck"} {
		for _, start := range []string{"/literal", "/name"} {
			api.Post(t, path, map[string]any{"url": "http://site.test:" + port + start}).
				WantError(t, 403, sitediag.CodeTargetNotAllowed)
		}
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("the refused listener saw %d connections, want 0", n)
	}
}

// TestRebinding: a name that answers an allowed address first and a
// refused one next never reaches the refused one.
func TestRebinding(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	var port string
	var conns *atomic.Int32
	// The same port on 127.0.0.1 (fixture) and 127.0.0.2 (refused).
	for range 20 {
		port = rawServer(t, func(string) map[string]string {
			return map[string]string{"/": redirectTo("/again"), "/again": "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"}
		})
		ln, err := net.Listen("tcp", "127.0.0.2:"+port)
		if err != nil {
			continue
		}
		ln.Close()
		_, conns = countingListener(t, "127.0.0.2:"+port)
		break
	}
	if conns == nil {
		t.Fatal("could not find a port free on both 127.0.0.1 and 127.0.0.2")
	}
	var queries atomic.Int32
	api.DNS.Handle(func(w mdns.ResponseWriter, req *mdns.Msg) {
		resp := new(mdns.Msg)
		resp.SetReply(req)
		if req.Question[0].Qtype == mdns.TypeA {
			ip := "127.0.0.1"
			if queries.Add(1) > 1 {
				ip = "127.0.0.2"
			}
			rr, _ := mdns.NewRR(req.Question[0].Name + " 0 IN A " + ip)
			resp.Answer = append(resp.Answer, rr)
		}
		w.WriteMsg(resp)
	})
	for _, path := range []string{"/redirectcheck", "/up"} {
		queries.Store(0)
		// The fixture closes every connection, so the second hop dials
		// again, resolves again, gets the refused address and stops.
		api.Post(t, path, map[string]any{"url": "http://rebind.test:" + port + "/"}).
			WantError(t, 403, sitediag.CodeTargetNotAllowed)
		if n := queries.Load(); n < 2 {
			t.Errorf("%s: %d A queries, want the second hop to resolve again", path, n)
		}
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("the rebound address saw %d connections, want 0", n)
	}
}

func TestRefusedTargets(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	invalid := []string{
		"", "example.test", "ftp://example.test/", "http://user:pw@site.test/", "http://2130706433/",
		"http://0x7f.1/", "http://0x7f000001/", "http://127.1/", "http://0177.0.0.1/", "http://017700000001/",
		"http://[fe80::1%25lo]/", "http://exa\tmple.test/", "javascript:alert(1)", "http://%31%32%37.0.0.2/",
	}
	refused := []string{
		"http://127.0.0.2/", "http://0.0.0.0/", "http://[::1]/", "http://[::ffff:127.0.0.2]/", "http://[::]/",
		"http://169.254.169.254/latest/meta-data/", "http://[::ffff:169.254.169.254]/", "http://[64:ff9b::a9fe:a9fe]/",
		"http://[2002:a9fe:a9fe::]/", "http://10.0.0.1/", "http://192.168.1.1/", "http://100.64.0.1/", "http://[fe80::1]/",
		"http://[fd00::1]/", "http://224.0.0.1/", "http://255.255.255.255/",
	}
	for _, path := range []string{"/up", "/redirectcheck"} {
		for _, u := range invalid {
			api.Post(t, path, map[string]any{"url": u}).WantError(t, 400, sitediag.CodeInvalidURL)
		}
		for _, u := range refused {
			resp := api.Post(t, path, map[string]any{"url": u})
			resp.WantError(t, 403, sitediag.CodeTargetNotAllowed)
			if d := resp.Envelope["details"]; d != "the target is not allowed" {
				t.Errorf("%s: details %q say more than the generic refusal", u, d)
			}
		}
	}
}

func TestRequestErrors(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	jsonHeaders := map[string]string{"x-api-key": apitest.Key, "Content-Type": "application/json"}

	t.Run("401", func(t *testing.T) {
		var bodies []string
		for _, key := range []string{"", "wrong", apitest.Key + "x"} {
			resp := api.Do(t, "POST", "/up", `{"url":"http://site.test/"}`, map[string]string{"x-api-key": key, "Content-Type": "application/json"})
			resp.WantError(t, 401, httpapi.CodeUnauthorized)
			if resp.Header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
			bodies = append(bodies, resp.Envelope["details"].(string))
		}
		if bodies[0] != bodies[1] || bodies[1] != bodies[2] {
			t.Errorf("401 bodies differ by key: %q", bodies)
		}
		api.Do(t, "GET", "/health", nil, nil).WantError(t, 401, httpapi.CodeUnauthorized)
	})
	t.Run("404", func(t *testing.T) {
		api.Do(t, "POST", "/nope", "{}", jsonHeaders).WantError(t, 404, httpapi.CodeNotFound)
		api.Do(t, "POST", "/up/", "{}", jsonHeaders).WantError(t, 404, httpapi.CodeNotFound)
	})
	t.Run("405", func(t *testing.T) {
		resp := api.Do(t, "GET", "/up", nil, jsonHeaders)
		resp.WantError(t, 405, httpapi.CodeMethodNotAllowed)
		if allow := resp.Header.Get("Allow"); !strings.Contains(allow, "POST") {
			t.Errorf("Allow = %q, want POST in it", allow)
		}
	})
	t.Run("415", func(t *testing.T) {
		for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded"} {
			api.Do(t, "POST", "/up", `{"url":"http://a.test/"}`, map[string]string{"x-api-key": apitest.Key, "Content-Type": ct}).
				WantError(t, 415, httpapi.CodeUnsupportedMediaType)
		}
	})
	t.Run("413", func(t *testing.T) {
		big := `{"url":"http://a.test/` + strings.Repeat("a", 70<<10) + `"}`
		api.Do(t, "POST", "/up", big, jsonHeaders).WantError(t, 413, httpapi.CodePayloadTooLarge)
	})
	t.Run("400", func(t *testing.T) {
		for body, field := range map[string]string{
			`{"url": 5}`: "url",
			`{"url": "http://a.test/", "followRedirect": 1}`: "followRedirect",
			`{"url": "http://a.test/", "extra": true}`:       "extra",
			`{"url": `:                     "body",
			`[1,2]`:                        "body",
			`{"url": "http://a.test/"} {}`: "body",
			`{"url":"https://a.example/","url":"https://b.example/"}`: "url",
		} {
			resp := api.Do(t, "POST", "/up", body, jsonHeaders)
			resp.WantError(t, 400, sitediag.CodeInvalidParameters)
			if d, _ := resp.Envelope["details"].(string); !strings.HasPrefix(d, field+":") {
				t.Errorf("%s: details %q do not name %q", body, d, field)
			}
		}
		api.Do(t, "POST", "/up", "", jsonHeaders).WantError(t, 400, sitediag.CodeInvalidURL)
		api.Do(t, "POST", "/up", `{"url":"http://a.test/","proxyCountry":"zz"}`, jsonHeaders).
			WantError(t, 400, sitediag.CodeProxyCountryUnsupported)
	})
}

func TestRateLimit(t *testing.T) {
	api := apitest.New(t, apitest.Options{HTTP: httpapi.Options{RateLimit: 1}})
	var limited *apitest.Response
	for range 4 {
		resp := api.Do(t, "GET", "/health", nil, map[string]string{"x-api-key": apitest.Key})
		if resp.Status == 429 {
			limited = resp
			break
		}
	}
	if limited == nil {
		t.Fatal("4 requests in a row at 1/s (burst 2) were never limited")
	}
	limited.WantError(t, 429, httpapi.CodeRateLimited)
	if ra, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("Retry-After = %q, want whole seconds >= 1", limited.Header.Get("Retry-After"))
	}
}

var testIDPattern = regexp.MustCompile(`^[0-9a-z]{32}$`)

func TestHealth(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	key := map[string]string{"x-api-key": apitest.Key}

	resp := api.Do(t, "GET", "/health", nil, key)
	if resp.Status != 200 {
		t.Fatalf("/health: %d %s", resp.Status, resp.Body)
	}
	if !testIDPattern.MatchString(resp.Header.Get("X-Request-Id")) {
		t.Errorf("X-Request-Id %q is not 32 base-36 characters", resp.Header.Get("X-Request-Id"))
	}
	delete(resp.Envelope, "timestamp")
	if diff := cmp.Diff(map[string]any{"apiStatus": "success", "apiCode": 200.0, "message": "API is healthy"}, resp.Envelope); diff != "" {
		t.Errorf("/health (-want +got):\n%s", diff)
	}

	resp = api.Do(t, "GET", "/health/service", nil, key)
	services := map[string]string{}
	for _, s := range resp.Envelope["services"].([]any) {
		m := s.(map[string]any)
		services[m["name"].(string)] = m["status"].(string)
	}
	for _, name := range []string{"resolver", "artifactStore"} {
		if services[name] != "healthy" {
			t.Errorf("service %s = %q, want healthy (%s)", name, services[name], resp.Body)
		}
	}

	resp = api.Do(t, "GET", "/livez", nil, nil)
	if resp.Status != 200 || string(resp.Body) != "ok\n" {
		t.Errorf("/livez: %d %q", resp.Status, resp.Body)
	}
}

func TestArtifacts(t *testing.T) {
	store, err := blobstore.OpenDir(t.TempDir(), blobstore.Options{TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	api := apitest.New(t, apitest.Options{HTTP: httpapi.Options{Artifacts: store}})
	name, err := store.Put(context.Background(), "txt", strings.NewReader("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{32}\.txt$`).MatchString(name) {
		t.Errorf("name %q is not 128 random bits in hex", name)
	}
	resp := api.Do(t, "GET", "/artifacts/"+name, nil, nil)
	if resp.Status != 200 || string(resp.Body) != "hello" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("GET artifact: %d %q %q", resp.Status, resp.Body, resp.Header.Get("Content-Type"))
	}
	head := api.Do(t, "HEAD", "/artifacts/"+name, nil, nil)
	if head.Status != 200 || len(head.Body) != 0 || head.Header.Get("Content-Length") != "5" {
		t.Errorf("HEAD artifact: %d, body %q, Content-Length %q; want 200, no body, 5", head.Status, head.Body, head.Header.Get("Content-Length"))
	}
	for _, bad := range []string{"00000000000000000000000000000000.txt", "..%2f..%2fetc%2fpasswd", "x.txt"} {
		api.Do(t, "GET", "/artifacts/"+bad, nil, nil).WantError(t, 404, httpapi.CodeNotFound)
	}
	if err := store.Sweep(context.Background(), time.Now().Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	api.Do(t, "GET", "/artifacts/"+name, nil, nil).WantError(t, 404, httpapi.CodeNotFound)
}

// TestNoArtifactStore: without Options.Artifacts, and with no temporary
// directory to open one in, nothing is served from /artifacts/ and
// /health/service says the store is not configured.
func TestNoArtifactStore(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", notDir)
	client, err := sitediag.New(sitediag.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	srv := httptest.NewServer(httpapi.New(client, httpapi.Options{APIKeys: []string{"k"}, Logger: slog.New(slog.DiscardHandler)}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/artifacts/" + strings.Repeat("0", 32) + ".png")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("GET /artifacts/ without a store: %d, want 404", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/health/service", nil)
	req.Header.Set("x-api-key", "k")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"name":"artifactStore","status":"down","message":"not configured"`) {
		t.Errorf("/health/service without a store: %s", body)
	}
}

// TestMountedUnderPrefix: the handler works behind http.StripPrefix.
func TestMountedUnderPrefix(t *testing.T) {
	client, err := sitediag.New(sitediag.Config{AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/diag/", http.StripPrefix("/diag", httpapi.New(client, httpapi.Options{APIKeys: []string{"k"}, Logger: slog.New(slog.DiscardHandler)})))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/diag/health", nil)
	req.Header.Set("x-api-key", "k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /diag/health = %d", resp.StatusCode)
	}
	// The description names the server with its prefix, so that a
	// generated client calls /diag/up.
	resp, err = http.Get(srv.URL + "/diag/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Servers []struct{ URL string } }
	json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if len(doc.Servers) != 1 || doc.Servers[0].URL != srv.URL+"/diag" {
		t.Errorf("GET /diag/openapi.json: servers %+v, want %s/diag", doc.Servers, srv.URL)
	}

}

// TestRedirectCheckHopUnreachable: a hop that gets no response is 422.
func TestRedirectCheckHopUnreachable(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	api.DNS.Add(t, "site.test. 60 IN A 127.0.0.1")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, closedPort, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	port := rawServer(t, func(string) map[string]string {
		return map[string]string{"/": redirectTo("http://site.test:" + closedPort + "/gone")}
	})
	resp := api.Post(t, "/redirectcheck", map[string]any{"url": "http://site.test:" + port + "/"})
	resp.WantError(t, 422, sitediag.CodeUnableToConnect)
	if d, _ := resp.Envelope["details"].(string); !strings.Contains(d, "connection refused") {
		t.Errorf("details %q do not say why", d)
	}
}
