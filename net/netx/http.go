package netx

import (
	"net"
	"net/http"
)

// Doer sends one HTTP request without following redirects: an
// *http.Client whose CheckRedirect returns http.ErrUseLastResponse.
type Doer interface {
	Do(req *http.Request) (*http.Response, error)
}

// ClientFunc returns a new Doer with connections of its own; when wrap
// is not nil, every connection the Doer opens is passed through it
// first (to record what crosses the wire).
type ClientFunc func(wrap func(net.Conn) net.Conn) Doer
