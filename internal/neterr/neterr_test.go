package neterr_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/sitediag/sitediag/dns"
	"github.com/sitediag/sitediag/internal/neterr"
	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/netx"
)

func TestWhy(t *testing.T) {
	dialErr := func(errno syscall.Errno) error {
		return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errno)}
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&guard.ResolveError{Host: "nx.test", Err: errors.New("NXDOMAIN")}, "name not resolved"},
		{&guard.ResolveError{Host: "nx.test", Err: &dns.NotFoundError{Name: "nx.test"}}, "name not resolved"},
		{&guard.ResolveError{Host: "slow.test", Err: fmt.Errorf("%w: %w", dns.ErrNoAnswer, dns.ErrTimeout)}, "DNS servers did not answer in time"},
		{&guard.ResolveError{Host: "bad.test", Err: fmt.Errorf("%w: %w", dns.ErrNoAnswer, dns.ErrMalformed)}, "DNS servers did not answer"},
		{&guard.ResolveError{Host: "broken.test", Err: &dns.RcodeError{Name: "broken.test", Type: "A", Rcode: "SERVFAIL"}}, "DNS server answered SERVFAIL"},
		{dialErr(syscall.ECONNREFUSED), "connection refused"},
		{dialErr(syscall.ENETUNREACH), "host unreachable"},
		{dialErr(syscall.EACCES), "not permitted"},
		{fmt.Errorf("ping: %w", dialErr(syscall.EPERM)), "not permitted"},
		{context.DeadlineExceeded, "timed out"},
		{&netx.ProxyError{Proxy: "proxy:3128", Err: errors.New("refused")}, "proxy unreachable"},
		{netx.ErrBodyTooLarge, "response too large"},
		{errors.New("something else"), "connection failed"},
	} {
		if got := neterr.Why(tc.err); got != tc.want {
			t.Errorf("Why(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
