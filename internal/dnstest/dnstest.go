// Package dnstest runs a local DNS server for tests: UDP and TCP on
// 127.0.0.1 with a random port, answering from records the test adds, so
// names such as site.test resolve to loopback fixtures without leaving
// the machine.
//
// The server answers like a recursive resolver that knows every record
// it holds: CNAMEs are followed, an empty answer carries the SOA of the
// closest enclosing zone in the authority section, the RRSIGs of what it
// answers are added when the query sets the DO bit, and a UDP answer
// larger than the client's buffer (its EDNS0 size, else 512 bytes) is
// truncated, so the client has to retry over TCP. SignZone builds signed
// zones for DNSSEC tests.
package dnstest

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"

	mdns "github.com/miekg/dns"
)

// Server is a running test DNS server.
type Server struct {
	// Addr is host:port, the same for UDP and TCP.
	Addr string

	udp, tcp *mdns.Server

	mu      sync.Mutex
	records map[key][]mdns.RR
	handler mdns.HandlerFunc
	queries []Query
}

type key struct {
	name  string
	qtype uint16
}

// Query is a question the server received.
type Query struct {
	Name string
	Type uint16
	// Network is "udp" or "tcp".
	Network string
}

// Start starts a server and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Listen starts a server on a random loopback port; Close stops it. Tests
// use Start; Listen serves examples and benchmarks, which have no
// testing.TB.
func Listen() (*Server, error) {
	s := &Server{records: map[key][]mdns.RR{}}
	pc, ln, err := listenPair()
	if err != nil {
		return nil, err
	}
	s.Addr = pc.LocalAddr().String()
	mux := mdns.HandlerFunc(s.serve)
	s.udp = &mdns.Server{PacketConn: pc, Handler: mux}
	s.tcp = &mdns.Server{Listener: ln, Handler: mux}
	// Both servers report starting, or failing to start, so Listen
	// never waits for a server that is not coming.
	started, failed := make(chan struct{}, 2), make(chan error, 2)
	for _, srv := range []*mdns.Server{s.udp, s.tcp} {
		srv.NotifyStartedFunc = func() { started <- struct{}{} }
		go func() { failed <- srv.ActivateAndServe() }()
	}
	for range 2 {
		select {
		case <-started:
		case err := <-failed:
			s.udp.Shutdown()
			s.tcp.Shutdown()
			pc.Close()
			ln.Close()
			return nil, fmt.Errorf("dnstest: starting the server: %w", err)
		}
	}
	return s, nil
}

// listenPair listens on UDP and TCP with the same random loopback port.
// The TCP port may be taken (by another connection's ephemeral port), so
// a few ports are tried.
func listenPair() (net.PacketConn, net.Listener, error) {
	var err error
	for range 20 {
		var pc net.PacketConn
		if pc, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			break
		}
		var ln net.Listener
		if ln, err = net.Listen("tcp", pc.LocalAddr().String()); err == nil {
			return pc, ln, nil
		}
		pc.Close()
	}
	return nil, nil, fmt.Errorf("dnstest: %w", err)
}

// Close stops the server.
func (s *Server) Close() error {
	return errors.Join(s.udp.Shutdown(), s.tcp.Shutdown())
}

// Add parses each record in zone-file form ("site.test. 60 IN A
// 127.0.0.1") and serves it.
func (s *Server) Add(t testing.TB, records ...string) {
	t.Helper()
	if err := s.AddText(records...); err != nil {
		t.Fatal(err)
	}
}

// AddText is Add for callers without a testing.TB.
func (s *Server) AddText(records ...string) error {
	rrs := make([]mdns.RR, 0, len(records))
	for _, text := range records {
		rr, err := mdns.NewRR(text)
		if err != nil {
			return fmt.Errorf("dnstest: %q: %w", text, err)
		}
		rrs = append(rrs, rr)
	}
	s.AddRR(rrs...)
	return nil
}

// AddRR serves records built in Go, such as those of a Zone.
func (s *Server) AddRR(records ...mdns.RR) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rr := range records {
		rr = mdns.Copy(rr)
		k := key{strings.ToLower(rr.Header().Name), rr.Header().Rrtype}
		s.records[k] = append(s.records[k], rr)
	}
}

// Queries returns the questions received so far, in order.
func (s *Server) Queries() []Query {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.queries)
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
	for _, q := range req.Question {
		s.queries = append(s.queries, Query{Name: q.Name, Type: q.Qtype, Network: w.LocalAddr().Network()})
	}
	s.mu.Unlock()
	if h != nil {
		h(w, req)
		return
	}
	s.ServeRecords(w, req)
}

// ServeRecords answers req from the records, as the server does when no
// handler is set; a handler may call it for the queries it does not
// change.
func (s *Server) ServeRecords(w mdns.ResponseWriter, req *mdns.Msg) {
	resp := new(mdns.Msg)
	resp.SetReply(req)
	resp.Authoritative = true
	resp.RecursionAvailable = true
	if len(req.Question) != 1 {
		resp.Rcode = mdns.RcodeFormatError
		w.WriteMsg(resp)
		return
	}
	q := req.Question[0]
	name := strings.ToLower(q.Name)
	opt := req.IsEdns0()
	dnssecOK := opt != nil && opt.Do()
	s.mu.Lock()
	resp.Answer = s.answer(name, q.Qtype)
	if len(resp.Answer) == 0 {
		if !s.nameExists(name) {
			resp.Rcode = mdns.RcodeNameError
		}
		resp.Ns = s.enclosingSOA(name)
	}
	if dnssecOK {
		resp.Answer = s.withSignatures(resp.Answer)
		resp.Ns = s.withSignatures(resp.Ns)
	}
	s.mu.Unlock()
	size := mdns.MinMsgSize
	if opt != nil {
		resp.SetEdns0(ednsSize, dnssecOK)
		size = max(int(opt.UDPSize()), mdns.MinMsgSize)
	}
	if w.LocalAddr().Network() == "udp" {
		resp.Truncate(size)
	}
	w.WriteMsg(resp)
}

// ednsSize is the buffer size the server advertises.
const ednsSize = 1232

// enclosingSOA returns the SOA of name or of its closest ancestor that
// has one.
func (s *Server) enclosingSOA(name string) []mdns.RR {
	for off, end := 0, false; !end; off, end = mdns.NextLabel(name, off) {
		if soa := s.records[key{name[off:], mdns.TypeSOA}]; len(soa) > 0 {
			return soa[:1:1]
		}
	}
	return nil
}

// withSignatures appends to rrs the RRSIGs that cover its RRsets.
func (s *Server) withSignatures(rrs []mdns.RR) []mdns.RR {
	type rrset struct {
		name  string
		rtype uint16
	}
	seen := map[rrset]bool{}
	out := rrs
	for _, rr := range rrs {
		set := rrset{strings.ToLower(rr.Header().Name), rr.Header().Rrtype}
		if seen[set] || set.rtype == mdns.TypeRRSIG {
			continue
		}
		seen[set] = true
		for _, sig := range s.records[key{set.name, mdns.TypeRRSIG}] {
			if sig.(*mdns.RRSIG).TypeCovered == set.rtype {
				out = append(out, sig)
			}
		}
	}
	return out
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
