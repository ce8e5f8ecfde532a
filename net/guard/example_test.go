package guard_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"

	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/netx"
)

// rebinder answers every name with loopback, as a hostile name server
// would to reach a service on the diagnosing host.
type rebinder struct{}

func (rebinder) LookupAddrs(context.Context, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// A guard's dialer refuses what the policy refuses, whatever the name
// resolves to; the operator's allow list opens a network.
func ExampleGuard_DialContext() {
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())

	strict := guard.New(rebinder{}, guard.NewPolicy(nil))
	_, err = strict.DialContext(ctx, "tcp", net.JoinHostPort("shop.test", port))
	fmt.Println("default policy:", errors.Is(err, netx.ErrNotAllowed))

	lab := guard.New(rebinder{}, guard.NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}))
	conn, err := lab.DialContext(ctx, "tcp", net.JoinHostPort("shop.test", port))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	fmt.Println("allow list 127.0.0.0/8:", conn.RemoteAddr().(*net.TCPAddr).AddrPort().Addr())
	// Output:
	// default policy: true
	// allow list 127.0.0.0/8: 127.0.0.1
}
