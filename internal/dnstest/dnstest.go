// Package dnstest runs a local DNS server for tests: UDP and TCP on
// 127.0.0.1 with a random port, answering from records the test adds, so
// names such as site.test resolve to loopback fixtures without leaving
// the machine.
package dnstest

import (
	"net"
	"strings"
	"sync"
	"testing"

	mdns "github.com/miekg/dns"
)

// Server is a running test DNS server.
type Server struct {
	// Addr is host:port, the same for UDP and TCP.
	Addr string

	mu      sync.Mutex
	records map[key][]mdns.RR
	handler mdns.HandlerFunc
}

type key struct {
	name  string
	qtype uint16
}

// Start starts a server and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{records: map[key][]mdns.RR{}}
	pc, ln, err := listenPair()
	if err != nil {
		t.Fatalf("dnstest: %v", err)
	}
	s.Addr = pc.LocalAddr().String()
	mux := mdns.HandlerFunc(s.serve)
	udp := &mdns.Server{PacketConn: pc, Handler: mux}
	tcp := &mdns.Server{Listener: ln, Handler: mux}
	var ready sync.WaitGroup
	ready.Add(2)
	udp.NotifyStartedFunc = ready.Done
	tcp.NotifyStartedFunc = ready.Done
	go udp.ActivateAndServe()
	go tcp.ActivateAndServe()
	ready.Wait()
	t.Cleanup(func() {
		udp.Shutdown()
		tcp.Shutdown()
	})
	return s
}

// listenPair listens on UDP and TCP on the same random loopback port.
// The UDP port the kernel picks may be taken on TCP by another test, so
// it tries a few ports.
func listenPair() (net.PacketConn, net.Listener, error) {
	var err error
	for range 20 {
		var pc net.PacketConn
		pc, err = net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return nil, nil, err
		}
		var ln net.Listener
		ln, err = net.Listen("tcp", pc.LocalAddr().String())
		if err == nil {
			return pc, ln, nil
		}
		pc.Close()
	}
	return nil, nil, err
}

// Add parses each record in zone-file form ("site.test. 60 IN A
// 127.0.0.1") and serves it.
func (s *Server) Add(t testing.TB, records ...string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, text := range records {
		rr, err := mdns.NewRR(text)
		if err != nil {
			t.Fatalf("dnstest: %q: %v", text, err)
		}
		k := key{strings.ToLower(rr.Header().Name), rr.Header().Rrtype}
		s.records[k] = append(s.records[k], rr)
	}
}

// Handle replaces the record lookup with h, for servers that misbehave
// or change their answers.
func (s *Server) Handle(h mdns.HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = h
}

func (s *Server) serve(w mdns.ResponseWriter, req *mdns.Msg) {
	s.mu.Lock()
	h := s.handler
	s.mu.Unlock()
	if h != nil {
		h(w, req)
		return
	}
	resp := new(mdns.Msg)
	resp.SetReply(req)
	resp.Authoritative = true
	if len(req.Question) != 1 {
		resp.Rcode = mdns.RcodeFormatError
		w.WriteMsg(resp)
		return
	}
	q := req.Question[0]
	name := strings.ToLower(q.Name)
	s.mu.Lock()
	resp.Answer = append(resp.Answer, s.answer(name, q.Qtype)...)
	exists := s.nameExists(name)
	s.mu.Unlock()
	if len(resp.Answer) == 0 && !exists {
		resp.Rcode = mdns.RcodeNameError
	}
	w.WriteMsg(resp)
}

// answer returns the records of name and type, following CNAMEs.
func (s *Server) answer(name string, qtype uint16) []mdns.RR {
	var out []mdns.RR
	for range 8 {
		if rrs := s.records[key{name, qtype}]; len(rrs) > 0 || qtype == mdns.TypeCNAME {
			return append(out, rrs...)
		}
		cname := s.records[key{name, mdns.TypeCNAME}]
		if len(cname) == 0 {
			return out
		}
		out = append(out, cname[0])
		name = strings.ToLower(cname[0].(*mdns.CNAME).Target)
	}
	return out
}

func (s *Server) nameExists(name string) bool {
	for k := range s.records {
		if k.name == name {
			return true
		}
	}
	return false
}
