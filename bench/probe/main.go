// Command probe is the sitediag side of the benchmarks in bench/: it
// runs one operation through the library and prints what the scripts
// compare with the peer tool.
//
//	probe listen -addr 127.0.0.2 -ports 21,80,443   # hold listeners until killed
//	probe openport -target 127.0.0.2 -ports 1-1000  # prints the open ports, comma-separated
//	probe mtr -target 203.0.113.2 -count 5          # prints one hop address per line
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"

	"github.com/sitediag/sitediag"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("probe: ")
	if len(os.Args) < 2 {
		log.Fatal("usage: probe listen|openport|mtr [flags]")
	}
	cmd, args := os.Args[1], os.Args[2:]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.2", "listen: address to listen on")
	target := fs.String("target", "127.0.0.2", "openport, mtr: target")
	ports := fs.String("ports", "1-1000", "listen: ports to open; openport: ports to scan")
	count := fs.Int("count", 5, "mtr: rounds")
	allow := fs.String("allow", "", "comma-separated networks exempt from the SSRF policy (default: the target's address)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the command to this file")
	fs.Parse(args)
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	switch cmd {
	case "listen":
		listen(*addr, *ports)
	case "openport":
		c := client(*target, *allow)
		res, err := c.OpenPort(context.Background(), *target, sitediag.OpenPortOptions{PortRanges: *ports})
		if err != nil {
			log.Fatal(err)
		}
		s := make([]string, len(res.OpenPorts))
		for i, p := range res.OpenPorts {
			s[i] = strconv.Itoa(int(p))
		}
		fmt.Println(strings.Join(s, ","))
	case "mtr":
		c := client(*target, *allow)
		res, err := c.MTR(context.Background(), *target, sitediag.MTROptions{Count: *count, NoLookup: sitediag.On})
		if err != nil {
			log.Fatal(err)
		}
		for _, h := range res.Hops {
			fmt.Printf("%d %s loss=%.1f%% sent=%d avg=%.3fms\n", h.Hop, h.Host, h.Loss, h.Sent, h.Avg)
		}
	default:
		log.Fatalf("unknown command %q", cmd)
	}
}

// client exempts the networks in allow, or the target's own address.
func client(target, allow string) *sitediag.Client {
	var prefixes []netip.Prefix
	if allow == "" {
		a, err := netip.ParseAddr(target)
		if err != nil {
			log.Fatalf("-target %q is not an IP address; give -allow", target)
		}
		prefixes = append(prefixes, netip.PrefixFrom(a, a.BitLen()))
	}
	for _, s := range strings.FieldsFunc(allow, func(r rune) bool { return r == ',' }) {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			log.Fatal(err)
		}
		prefixes = append(prefixes, p)
	}
	c, err := sitediag.New(sitediag.Config{AllowNetworks: prefixes})
	if err != nil {
		log.Fatal(err)
	}
	return c
}

// listen opens a listener on each port it can bind, prints them, and
// holds them until SIGINT or SIGTERM.
func listen(addr, ports string) {
	var bound []string
	for _, p := range strings.Split(ports, ",") {
		ln, err := net.Listen("tcp", net.JoinHostPort(addr, p))
		if err != nil {
			continue
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		bound = append(bound, p)
	}
	fmt.Println(strings.Join(bound, ","))
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
}
