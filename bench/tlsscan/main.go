// Command tlsscan runs sitediag's TLS scan on one target and prints the
// result as JSON: the "ours" side of bench/tlsscan.sh. Loopback is
// allowed, as the bench's target is local.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/netip"
	"os"

	"github.com/sitediag/sitediag"
)

func main() {
	allow := flag.String("allow", "127.0.0.0/8", "network exempt from the SSRF deny table")
	protocols := flag.Bool("protocols", false, "print only the supported versions, as sslscan names them")
	flag.Parse()
	if flag.NArg() != 1 {
		log.Fatal("usage: tlsscan [-allow CIDR] https://host:port")
	}
	prefix, err := netip.ParsePrefix(*allow)
	if err != nil {
		log.Fatal(err)
	}
	c, err := sitediag.New(sitediag.Config{AllowNetworks: []netip.Prefix{prefix}})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.TLSScan(context.Background(), flag.Arg(0), sitediag.TLSScanOptions{})
	if err != nil {
		log.Fatal(err)
	}
	if *protocols {
		p := res.Protocols
		for _, v := range []struct {
			on   bool
			name string
		}{{p.SSL2, "SSLv2"}, {p.SSL3, "SSLv3"}, {p.TLS10, "TLSv1.0"}, {p.TLS11, "TLSv1.1"}, {p.TLS12, "TLSv1.2"}, {p.TLS13, "TLSv1.3"}} {
			if v.on {
				fmt.Println(v.name)
			}
		}
		return
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.Encode(res)
}
