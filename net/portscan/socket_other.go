//go:build !linux

package portscan

import (
	"errors"
	"net/netip"

	"github.com/sitediag/sitediag/net/netx"
)

// newSocketConnector has no sockets of its own to offer off Linux: the
// scan dials.
func newSocketConnector(netx.ControlFunc, netip.Addr) (connector, error) {
	return nil, errors.ErrUnsupported
}
