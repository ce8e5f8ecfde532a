package mtr

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// OriginQuery returns the DNS name whose TXT record gives the origin AS
// of addr in an IP-to-ASN zone of Team Cymru's format: the address's
// octets (IPv4) or nibbles (IPv6) reversed, under zone4 or zone6
// ("origin.asn.cymru.com", "origin6.asn.cymru.com"). It returns "" when
// the family's zone is empty.
func OriginQuery(addr netip.Addr, zone4, zone6 string) string {
	addr = addr.Unmap()
	var labels []string
	zone := zone4
	if addr.Is4() {
		b := addr.As4()
		for i := 3; i >= 0; i-- {
			labels = append(labels, strconv.Itoa(int(b[i])))
		}
	} else {
		zone = zone6
		b := addr.As16()
		for i := 15; i >= 0; i-- {
			labels = append(labels, strconv.FormatUint(uint64(b[i]&0x0f), 16), strconv.FormatUint(uint64(b[i]>>4), 16))
		}
	}
	if zone == "" {
		return ""
	}
	return strings.Join(labels, ".") + "." + strings.Trim(zone, ".") + "."
}

// ParseOrigin reads the AS number out of an origin TXT record such as
// "13335 | 1.1.1.0/24 | AU | apnic | 2011-08-11"; a multi-origin prefix
// ("64500 64501 | …") gives the first. The result is "AS13335".
func ParseOrigin(txt string) (string, error) {
	first, _, _ := strings.Cut(txt, "|")
	fields := strings.Fields(first)
	if len(fields) == 0 {
		return "", fmt.Errorf("mtr: origin record %q has no AS number", txt)
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(strings.ToUpper(fields[0]), "AS"), 10, 32)
	if err != nil || n == 0 {
		return "", fmt.Errorf("mtr: origin record %q has no AS number", txt)
	}
	return "AS" + strconv.FormatUint(n, 10), nil
}
