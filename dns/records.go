package dns

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	mdns "github.com/miekg/dns"
	"golang.org/x/sync/errgroup"
)

// recordTypes are the types LookupRecords supports, in the order they are
// reported when none is asked for.
var recordTypes = []string{"A", "AAAA", "CNAME", "MX", "CAA", "NS", "SOA", "SRV", "TXT"}

// RecordTypes returns the types LookupRecords supports, in the order
// results list them (a new slice on each call).
func RecordTypes() []string { return slices.Clone(recordTypes) }

// TypeError means a requested record type is not supported or is asked
// for twice.
type TypeError struct {
	// Type is the offending type as given.
	Type string
	// Duplicate is true when the type is supported but repeated.
	Duplicate bool
}

func (e *TypeError) Error() string {
	if e.Duplicate {
		return fmt.Sprintf("dns: record type %q is listed twice", e.Type)
	}
	return fmt.Sprintf("dns: record type %q is not one of %s", e.Type, strings.Join(recordTypes, ", "))
}

// ParseTypes returns types in upper case, or RecordTypes when types is
// empty. An unsupported or repeated type is a *TypeError.
func ParseTypes(types []string) ([]string, error) {
	if len(types) == 0 {
		return RecordTypes(), nil
	}
	out := make([]string, 0, len(types))
	for _, t := range types {
		upper := strings.ToUpper(strings.TrimSpace(t))
		if !slices.Contains(recordTypes, upper) {
			return nil, &TypeError{Type: t}
		}
		if slices.Contains(out, upper) {
			return nil, &TypeError{Type: t, Duplicate: true}
		}
		out = append(out, upper)
	}
	return out, nil
}

// MX is a mail exchanger.
type MX struct {
	Exchange string `json:"exchange"`
	Priority uint16 `json:"priority"`
}

// CAA is a certification authority authorization. Critical is the flags
// byte: 128 when the critical bit is set, 0 when not.
type CAA struct {
	Critical uint8  `json:"critical"`
	Tag      string `json:"tag"`
	Value    string `json:"value"`
}

// SOA is a zone's start of authority. Hostmaster is in DNS form
// (hostmaster.example.com).
type SOA struct {
	NSName     string `json:"nsname"`
	Hostmaster string `json:"hostmaster"`
	Serial     uint32 `json:"serial"`
	Refresh    uint32 `json:"refresh"`
	Retry      uint32 `json:"retry"`
	Expire     uint32 `json:"expire"`
	MinTTL     uint32 `json:"minttl"`
}

// SRV is a service location; Name is the target host.
type SRV struct {
	Name     string `json:"name"`
	Port     uint16 `json:"port"`
	Priority uint16 `json:"priority"`
	Weight   uint16 `json:"weight"`
}

// Records are the records of one name, by type. Only the types in Types
// were queried; each of them that has no record is empty. Names never end
// in a dot (the root name is "."). For an alias, CNAME holds the alias's
// target and every other type the records of the name the CNAME chain
// ends at, as resolvers answer.
//
// It marshals to a JSON object keyed by the queried types (SOA is left
// out when there is none).
type Records struct {
	// Types are the types queried, in upper case.
	Types []string
	// Rcode is the response code: NOERROR, or the first other code
	// (NXDOMAIN, SERVFAIL, …) in the order of Types.
	Rcode string

	A, AAAA, CNAME, NS, TXT []string
	MX                      []MX
	CAA                     []CAA
	SOA                     *SOA
	SRV                     []SRV
}

// MarshalJSON writes the queried types in the order of Types.
func (r Records) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for _, t := range r.Types {
		v := r.field(t)
		if v == nil {
			continue
		}
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, "%q:", t)
		data, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		buf.Write(data)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// field returns the value of type t for JSON: a non-nil slice, the SOA,
// or nil for an absent SOA.
func (r Records) field(t string) any {
	switch t {
	case "A":
		return nonNil(r.A)
	case "AAAA":
		return nonNil(r.AAAA)
	case "CNAME":
		return nonNil(r.CNAME)
	case "MX":
		return nonNil(r.MX)
	case "CAA":
		return nonNil(r.CAA)
	case "NS":
		return nonNil(r.NS)
	case "SOA":
		if r.SOA == nil {
			return nil
		}
		return r.SOA
	case "SRV":
		return nonNil(r.SRV)
	case "TXT":
		return nonNil(r.TXT)
	}
	return nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// maxParallelQueries bounds the queries one lookup has in flight.
const maxParallelQueries = 9

// LookupRecords queries name for each of types (see ParseTypes; empty
// means RecordTypes) concurrently. Every rcode is an answer: a name that
// does not exist is Records with Rcode NXDOMAIN and no records.
//
// Errors: a *TypeError for a bad type; an error wrapping ErrNoAnswer
// (and ErrTimeout when time ran out) when a query got no answer from any
// server.
func (r *Resolver) LookupRecords(ctx context.Context, name string, types []string) (*Records, error) {
	types, err := ParseTypes(types)
	if err != nil {
		return nil, err
	}
	answers := make([]*mdns.Msg, len(types))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(maxParallelQueries)
	for i, t := range types {
		g.Go(func() error {
			msg := new(mdns.Msg)
			msg.SetQuestion(mdns.Fqdn(name), mdns.StringToType[t])
			resp, err := r.Exchange(gctx, msg)
			if err != nil {
				return fmt.Errorf("dns: %s %s: %w", t, name, err)
			}
			answers[i] = resp
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := &Records{Types: types, Rcode: mdns.RcodeToString[mdns.RcodeSuccess]}
	for i, t := range types {
		resp := answers[i]
		if resp.Rcode != mdns.RcodeSuccess && out.Rcode == mdns.RcodeToString[mdns.RcodeSuccess] {
			out.Rcode = rcodeString(resp.Rcode)
		}
		out.add(t, mdns.Fqdn(name), resp.Answer)
	}
	return out, nil
}

func rcodeString(rcode int) string {
	if s, ok := mdns.RcodeToString[rcode]; ok {
		return s
	}
	return fmt.Sprintf("RCODE%d", rcode)
}

// add fills type t from the answer section of the query for qname.
func (r *Records) add(t, qname string, answer []mdns.RR) {
	owner := qname
	if t != "CNAME" {
		owner = chainEnd(qname, answer)
	}
	rrs := answer[:0:0]
	for _, rr := range answer {
		if strings.EqualFold(rr.Header().Name, owner) && mdns.TypeToString[rr.Header().Rrtype] == t {
			rrs = append(rrs, rr)
		}
	}
	switch t {
	case "A":
		r.A = mapRR(rrs, func(rr *mdns.A) string { return rr.A.String() })
	case "AAAA":
		r.AAAA = mapRR(rrs, func(rr *mdns.AAAA) string { return rr.AAAA.String() })
	case "CNAME":
		r.CNAME = mapRR(rrs, func(rr *mdns.CNAME) string { return hostName(rr.Target) })
	case "NS":
		r.NS = mapRR(rrs, func(rr *mdns.NS) string { return hostName(rr.Ns) })
	case "TXT":
		r.TXT = mapRR(rrs, func(rr *mdns.TXT) string { return txtText(rr.Txt) })
	case "MX":
		r.MX = mapRR(rrs, func(rr *mdns.MX) MX { return MX{Exchange: hostName(rr.Mx), Priority: rr.Preference} })
		slices.SortStableFunc(r.MX, func(a, b MX) int { return cmp.Compare(a.Priority, b.Priority) })
	case "CAA":
		r.CAA = mapRR(rrs, func(rr *mdns.CAA) CAA { return CAA{Critical: rr.Flag, Tag: rr.Tag, Value: rr.Value} })
	case "SRV":
		r.SRV = mapRR(rrs, func(rr *mdns.SRV) SRV {
			return SRV{Name: hostName(rr.Target), Port: rr.Port, Priority: rr.Priority, Weight: rr.Weight}
		})
		slices.SortStableFunc(r.SRV, func(a, b SRV) int {
			return cmp.Or(cmp.Compare(a.Priority, b.Priority), cmp.Compare(b.Weight, a.Weight))
		})
	case "SOA":
		if soas := mapRR(rrs, toSOA); len(soas) > 0 {
			r.SOA = &soas[0]
		}
	}
}

func toSOA(rr *mdns.SOA) SOA {
	return SOA{NSName: hostName(rr.Ns), Hostmaster: hostName(rr.Mbox), Serial: rr.Serial,
		Refresh: rr.Refresh, Retry: rr.Retry, Expire: rr.Expire, MinTTL: rr.Minttl}
}

// mapRR converts each record of type R in rrs with f; the result is never
// nil.
func mapRR[R mdns.RR, T any](rrs []mdns.RR, f func(R) T) []T {
	out := make([]T, 0, len(rrs))
	for _, rr := range rrs {
		if v, ok := rr.(R); ok {
			out = append(out, f(v))
		}
	}
	return out
}

// chainEnd follows the CNAMEs in answer from qname and returns the name
// the chain ends at.
func chainEnd(qname string, answer []mdns.RR) string {
	name := qname
	for range len(answer) {
		next := ""
		for _, rr := range answer {
			if c, ok := rr.(*mdns.CNAME); ok && strings.EqualFold(c.Hdr.Name, name) {
				next = c.Target
				break
			}
		}
		if next == "" {
			break
		}
		name = next
	}
	return name
}

// hostName drops the trailing dot of a name; the root stays ".".
func hostName(name string) string {
	if name == "." {
		return name
	}
	return strings.TrimSuffix(name, ".")
}

// ReverseName returns the name under which addr's reverse records live,
// such as 4.3.2.1.in-addr.arpa, without the trailing dot.
func ReverseName(addr netip.Addr) string {
	name, err := mdns.ReverseAddr(addr.Unmap().String())
	if err != nil {
		return addr.String()
	}
	return hostName(name)
}
