// Package proxyserver serves an HTTP proxy handler on a listener with
// the limits every sitediag proxy server has, and stops it: the one
// server under guard's loopback proxies (guard.ListenProxy) and under
// the gate that serves proxies to browsers on other hosts (proxygate).
package proxyserver

import (
	"io"
	"log"
	"net"
	"net/http"
	"time"
)

// Limits of a proxy server. What a request it serves may take beyond
// them is bounded by the handler.
const (
	headerTimeout = 10 * time.Second
	idleTimeout   = 60 * time.Second
	// MaxHeaderBytes caps a request's header; a proxy also caps the
	// headers of the responses it forwards with it.
	MaxHeaderBytes = 256 << 10
)

// Server is a running proxy server. Close it.
type Server struct {
	srv    *http.Server
	served chan struct{}
}

// Serve serves h on ln until Close. The server's own errors (a client's
// malformed request, a cut connection) are discarded: h answers for what
// it serves.
func Serve(ln net.Listener, h http.Handler) *Server {
	s := &Server{
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: headerTimeout,
			IdleTimeout:       idleTimeout,
			MaxHeaderBytes:    MaxHeaderBytes,
			ErrorLog:          log.New(io.Discard, "", 0),
		},
		served: make(chan struct{}),
	}
	go func() {
		defer close(s.served)
		s.srv.Serve(ln)
	}()
	return s
}

// Close closes the listener and every connection the server holds (not
// those a handler took over) and returns once Serve has. Calls after the
// first do nothing and return nil.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.served
	return err
}
