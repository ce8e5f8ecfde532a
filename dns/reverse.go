package dns

import (
	"context"
	"net/netip"
	"strings"

	mdns "github.com/miekg/dns"
)

// LookupPTR returns the names of addr's PTR records (its reverse name in
// in-addr.arpa or ip6.arpa), without the trailing dot. No record is an
// empty list, not an error.
func (r *Resolver) LookupPTR(ctx context.Context, addr netip.Addr) ([]string, error) {
	rev, err := mdns.ReverseAddr(addr.Unmap().String())
	if err != nil {
		return nil, err
	}
	answer, err := r.answers(ctx, rev, mdns.TypePTR)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, rr := range answer {
		if ptr, ok := rr.(*mdns.PTR); ok {
			names = append(names, strings.TrimSuffix(ptr.Ptr, "."))
		}
	}
	return names, nil
}

// LookupTXT returns the text of name's TXT records, each record's strings
// joined, as text (not in presentation form). No record is an empty list,
// not an error.
func (r *Resolver) LookupTXT(ctx context.Context, name string) ([]string, error) {
	answer, err := r.answers(ctx, mdns.Fqdn(name), mdns.TypeTXT)
	if err != nil {
		return nil, err
	}
	var texts []string
	for _, rr := range answer {
		if txt, ok := rr.(*mdns.TXT); ok {
			texts = append(texts, txtText(txt.Txt))
		}
	}
	return texts, nil
}

// answers asks for the qtype records of fqdn and returns the answer
// section.
func (r *Resolver) answers(ctx context.Context, fqdn string, qtype uint16) ([]mdns.RR, error) {
	msg := new(mdns.Msg)
	msg.SetQuestion(fqdn, qtype)
	resp, err := r.Exchange(ctx, msg)
	if err != nil {
		return nil, err
	}
	return resp.Answer, nil
}

// txtText joins a TXT record's strings as text: miekg/dns keeps them in
// presentation form, where \DDD is a byte in decimal and \X is X.
func txtText(chunks []string) string {
	var b strings.Builder
	for _, s := range chunks {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c != '\\' || i+1 >= len(s) {
				b.WriteByte(c)
				continue
			}
			if i+3 < len(s) && isDigit(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) {
				if v := int(s[i+1]-'0')*100 + int(s[i+2]-'0')*10 + int(s[i+3]-'0'); v <= 255 {
					b.WriteByte(byte(v))
					i += 3
					continue
				}
			}
			b.WriteByte(s[i+1])
			i++
		}
	}
	return b.String()
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
