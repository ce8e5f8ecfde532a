package dnstest

import "strings"

// everyType is EveryType's zone, with {name} for the name.
var everyType = []string{
	"{name}. 60 IN A 192.0.2.1",
	"{name}. 60 IN A 192.0.2.2",
	"{name}. 60 IN AAAA 2001:db8::1",
	"{name}. 60 IN MX 20 mx2.{name}.",
	"{name}. 60 IN MX 10 mx1.{name}.",
	"{name}. 60 IN MX 30 mx3.{name}.",
	`{name}. 60 IN CAA 128 issue "ca.example"`,
	`{name}. 60 IN CAA 0 iodef "mailto:security@{name}"`,
	"{name}. 60 IN NS ns1.{name}.",
	"{name}. 60 IN NS ns2.{name}.",
	"{name}. 60 IN SOA ns1.{name}. hostmaster.{name}. 2024010101 7200 3600 1209600 300",
	"{name}. 60 IN SRV 20 5 5061 sip2.{name}.",
	"{name}. 60 IN SRV 10 10 5060 sip1.{name}.",
	"{name}. 60 IN SRV 10 60 5060 sip0.{name}.",
	`{name}. 60 IN TXT "v=spf1 " "include:{name} ~all"`,
	`{name}. 60 IN TXT "hello"`,
	"www.{name}. 60 IN CNAME {name}.",
}

// EveryType returns records of every type a record lookup asks for, at
// name (a name without the trailing dot): A, AAAA, MX, CAA, NS, SOA,
// SRV and TXT, the MX and SRV records out of their priority order, and
// a CNAME at www.name to name, so name's own CNAME set is empty. The
// lines are in the form Add takes.
func EveryType(name string) []string {
	out := make([]string, len(everyType))
	for i, rr := range everyType {
		out[i] = strings.ReplaceAll(rr, "{name}", name)
	}
	return out
}
