package httpapi_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitest"
)

// stallingServer accepts connections on loopback and answers each with
// reply (after reading the request head), then holds the connection open
// and silent until the test ends. An empty reply stalls at once.
func stallingServer(t *testing.T, reply string) string {
	t.Helper()
	addr := holdingServer(t, func(c net.Conn) {
		if reply == "" {
			return
		}
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadString('\n')
			if err != nil || line == "\r\n" {
				break
			}
		}
		io.WriteString(c, reply)
	})
	return "http://" + addr + "/"
}

// holdingServer accepts connections on loopback, runs greet on each, then
// holds the connection open and silent until the test ends. It returns
// the listening address.
func holdingServer(t *testing.T, greet func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var conns sync.WaitGroup
	t.Cleanup(func() {
		close(done)
		ln.Close()
		conns.Wait()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Go(func() {
				defer c.Close()
				greet(c)
				<-done
			})
		}
	}()
	return ln.Addr().String()
}

// TestHeadOnlyOperationsDoNotWaitForTheBody: /up, /redirectcheck and
// /httpheader need the response head alone. A server that stalls after
// the head or mid-body must not hold them; one that never answers holds
// them for the response-head bound (15 s), not the job's 60 s.
func TestHeadOnlyOperationsDoNotWaitForTheBody(t *testing.T) {
	api := apitest.New(t, apitest.Options{})
	const head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 1000000\r\nX-Probe: yes\r\n\r\n"
	servers := []struct {
		name  string
		reply string
		bound time.Duration
	}{
		{"after the head", head, 5 * time.Second},
		{"mid-body", head + strings.Repeat("<p>partial ", 100), 5 * time.Second},
		{"at accept", "", 15*time.Second + 5*time.Second},
	}
	// Every case runs at once (t.Run from its own goroutine): the slowest
	// is bounded by 15 s, and t.Parallel would run only GOMAXPROCS of
	// them at a time.
	var wg sync.WaitGroup
	for _, srv := range servers {
		url := stallingServer(t, srv.reply)
		for _, path := range []string{"/up", "/redirectcheck", "/httpheader"} {
			wg.Go(func() {
				t.Run(srv.name+" "+path, func(t *testing.T) {
					start := time.Now()
					resp := api.Post(t, path, map[string]any{"url": url})
					if elapsed := time.Since(start); elapsed > srv.bound {
						t.Errorf("took %v, want at most %v", elapsed, srv.bound)
					}
					if srv.reply == "" {
						wantNoAnswer(t, path, resp)
						return
					}
					_, data := resp.WantSuccess(t)
					if path == "/httpheader" && !strings.Contains(compact(t, data), `"x-probe"`) {
						t.Errorf("headers %s: want x-probe among them", compact(t, data))
					}
				})
			})
		}
	}
	wg.Wait()
}

// wantNoAnswer checks the outcome of a server that never answered:
// /up reports the site down, the others a target that did not answer.
func wantNoAnswer(t *testing.T, path string, resp *apitest.Response) {
	t.Helper()
	if path != "/up" {
		resp.WantError(t, http.StatusUnprocessableEntity, sitediag.CodeUnableToConnect)
		return
	}
	_, data := resp.WantSuccess(t)
	if d, _ := data.(map[string]any); d["statusCode"] != 0.0 || d["reasonPhrase"] != "timed out" {
		t.Errorf("/up data %v, want statusCode 0 and timed out", data)
	}
}
