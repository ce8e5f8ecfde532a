//go:build linux

// Command delayline links the host to a network namespace through two
// TUN devices and delays the packets it carries, as tc netem would on a
// kernel that has it (bench/portscan.sh uses it when sch_netem is
// missing). It creates -host in its own namespace and -peer in the
// namespace -netns (a name under /run/netns), prints "ready", and then
// copies IP packets between them, delaying those from the peer by
// -delay and those to it by -delay-out, in order, until killed. The
// devices vanish with it; the caller gives them addresses.
//
//	delayline -netns NAME -host tunA -peer tunB [-delay 50ms] [-delay-out 0]
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("delayline: ")
	netns := flag.String("netns", "", "the peer's network namespace, by name (ip netns)")
	host := flag.String("host", "", "the TUN device to create here")
	peer := flag.String("peer", "", "the TUN device to create in the peer's namespace")
	back := flag.Duration("delay", 50*time.Millisecond, "delay of the packets from the peer")
	out := flag.Duration("delay-out", 0, "delay of the packets to the peer")
	flag.Parse()
	if *netns == "" || *host == "" || *peer == "" {
		log.Fatal("-netns, -host and -peer are required")
	}
	here, err := openTUN(*host)
	if err != nil {
		log.Fatal(err)
	}
	there, err := openTUNIn(*netns, *peer)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("ready")
	go carry(here, there, *out)
	carry(there, here, *back)
}

// openTUN creates the TUN device name (no packet information header) in
// the calling thread's network namespace.
func openTUN(name string) (*os.File, error) {
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening /dev/net/tun: %w", err)
	}
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI)
	if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("creating %s: %w", name, err)
	}
	return os.NewFile(uintptr(fd), name), nil
}

// openTUNIn creates the TUN device name in the namespace netns, from a
// thread that enters it and is never used for anything else.
func openTUNIn(netns, name string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		ns, err := os.Open("/run/netns/" + netns)
		if err != nil {
			done <- opened{err: err}
			return
		}
		defer ns.Close()
		if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- opened{err: fmt.Errorf("entering %s: %w", netns, err)}
			return
		}
		f, err := openTUN(name)
		done <- opened{f, err}
	}()
	o := <-done
	return o.f, o.err
}

// packet is one IP packet and when it may leave.
type packet struct {
	data []byte
	due  time.Time
}

// carry copies packets from src to dst, each delay after it was read,
// in order.
func carry(src, dst *os.File, delay time.Duration) {
	queue := make(chan packet, 1<<16)
	go func() {
		for p := range queue {
			time.Sleep(time.Until(p.due))
			// A write before the caller brings the device up fails
			// (EIO); that packet is lost, as on a link still down.
			if _, err := dst.Write(p.data); err != nil && !errors.Is(err, unix.EIO) {
				log.Printf("writing to %s: %v", dst.Name(), err)
			}
		}
	}()
	buf := make([]byte, 65536)
	for {
		n, err := src.Read(buf)
		if err != nil {
			log.Fatalf("reading %s: %v", src.Name(), err)
		}
		queue <- packet{data: append([]byte(nil), buf[:n]...), due: time.Now().Add(delay)}
	}
}
