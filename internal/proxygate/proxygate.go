// Package proxygate serves many HTTP proxies on one listener, for
// browsers on other hosts. Each proxy is added under credentials of its
// own, fresh from crypto/rand; a request is handed to the proxy whose
// credentials its Proxy-Authorization header carries, without that
// header. Any other request (no credentials, malformed ones, unknown or
// removed ones) is answered 407 and goes nowhere.
//
// # Concurrency
//
// A Gate is safe for concurrent use.
package proxygate

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/sitediag/sitediag/internal/proxyserver"
)

// realm is the realm of the gate's challenges.
const realm = "sitediag"

// Credentials are what a client sends (Basic) to reach one proxy.
type Credentials struct {
	Username, Password string
}

// Gate is a listener that serves the proxies added to it, each to the
// holder of its credentials. Build it with Listen; Close it.
type Gate struct {
	url    string
	server *proxyserver.Server

	mu     sync.Mutex
	closed bool
	routes map[string]*route // by username
}

// route is one added proxy. ctx ends when it is removed; the requests
// handed to it end with it.
type route struct {
	password string
	h        http.Handler
	ctx      context.Context
	cancel   context.CancelFunc
}

// Listen starts a gate on addr (host:port; port 0 picks one). advertise
// is the gate's URL as the browsers reach it (http://host:port; without
// a port, the port listened on); empty means http://addr, which needs a
// specific address: a gate on every address (0.0.0.0, ::) must be told
// which one the browsers use.
func Listen(addr, advertise string) (*Gate, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("proxygate: %w", err)
	}
	u, err := advertised(ln.Addr().(*net.TCPAddr), advertise)
	if err != nil {
		ln.Close()
		return nil, err
	}
	g := &Gate{url: u, routes: map[string]*route{}}
	g.server = proxyserver.Serve(ln, g)
	return g, nil
}

// advertised checks advertise, or derives it from the address listened
// on, and gives it the listening port when it has none.
func advertised(listening *net.TCPAddr, advertise string) (string, error) {
	if advertise == "" {
		if listening.IP.IsUnspecified() {
			return "", fmt.Errorf("proxygate: listening on every address (%s) needs the URL browsers reach the gate at", listening)
		}
		return "http://" + listening.String(), nil
	}
	u, err := url.Parse(advertise)
	if err != nil || u.Scheme != "http" || u.Hostname() == "" || u.User != nil || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("proxygate: the gate's URL %q is not http://host[:port]", advertise)
	}
	port := u.Port()
	if port == "" {
		port = fmt.Sprint(listening.Port)
	}
	return "http://" + net.JoinHostPort(u.Hostname(), port), nil
}

// URL is the gate's address as the browsers reach it, for their proxy
// setting (http://host:port).
func (g *Gate) URL() string { return g.url }

// Add serves h to the requests that carry the credentials it returns,
// fresh and random, until remove is called: then those credentials are
// answered 407 like any other, and the requests h is serving see their
// contexts end (what h keeps beyond that, such as hijacked connections,
// is h's to close). remove may be called more than once.
func (g *Gate) Add(h http.Handler) (_ Credentials, remove func(), _ error) {
	c := Credentials{Username: random(), Password: random()}
	ctx, cancel := context.WithCancel(context.Background())
	rt := &route{password: c.Password, h: h, ctx: ctx, cancel: cancel}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		cancel()
		return Credentials{}, nil, errors.New("proxygate: closed")
	}
	g.routes[c.Username] = rt
	return c, func() { g.remove(c.Username, rt) }, nil
}

func (g *Gate) remove(username string, rt *route) {
	g.mu.Lock()
	if g.routes[username] == rt {
		delete(g.routes, username)
	}
	g.mu.Unlock()
	rt.cancel()
}

// random is 128 bits from crypto/rand, in hex.
func random() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ServeHTTP hands r to the proxy whose credentials it carries, or
// answers 407.
func (g *Gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt := g.route(r.Header.Get("Proxy-Authorization"))
	if rt == nil {
		w.Header().Set("Proxy-Authenticate", `Basic realm="`+realm+`"`)
		http.Error(w, http.StatusText(http.StatusProxyAuthRequired), http.StatusProxyAuthRequired)
		return
	}
	r.Header.Del("Proxy-Authorization")
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(rt.ctx, cancel)
	defer stop()
	rt.h.ServeHTTP(w, r.WithContext(ctx))
}

// route returns the live route whose Basic credentials header carries,
// or nil.
func (g *Gate) route(header string) *route {
	scheme, encoded, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return nil
	}
	decoded, err := base64.StdEncoding.DecodeString(strings.TrimSpace(encoded))
	if err != nil {
		return nil
	}
	user, password, ok := strings.Cut(string(decoded), ":")
	if !ok {
		return nil
	}
	g.mu.Lock()
	rt := g.routes[user]
	g.mu.Unlock()
	if rt == nil || subtle.ConstantTimeCompare([]byte(password), []byte(rt.password)) != 1 {
		return nil
	}
	return rt
}

// Close stops the gate: it cuts its connections (not those its proxies
// took over) and removes every proxy. Each step is idempotent, so Close
// is.
func (g *Gate) Close() error {
	g.mu.Lock()
	g.closed = true
	routes := g.routes
	g.routes = map[string]*route{}
	g.mu.Unlock()
	for _, rt := range routes {
		rt.cancel()
	}
	return g.server.Close()
}
