package sitediag

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/sitediag/sitediag/net/portscan"
	"github.com/sitediag/sitediag/option"
)

// DefaultTopPorts is the number of ranked ports OpenPort scans when
// neither TopPorts nor PortRanges is given.
const DefaultTopPorts = 100

// OpenPortOptions are the options of OpenPort and the API's body of
// /openport. The zero value scans the DefaultTopPorts most often open
// ports.
type OpenPortOptions struct {
	// TopPorts scans the N most often open TCP ports (Config.NmapServices'
	// ranking when nmap is installed, else portscan.DefaultRanking).
	// Zero means DefaultTopPorts unless portRanges is set; both together
	// are refused.
	TopPorts int `json:"topPorts" api:"enum=50|100|500|1000|5000"`
	// PortRanges lists the ports to scan, such as "80,443,1000-1010":
	// ports 1-65535, ascending ranges, at most 5000 ports in all.
	PortRanges string `json:"portRanges"`
	// DetectServices probes each open port for what answers (banner,
	// TLS, HTTP) and fills OpenPortResult.Services.
	DetectServices Toggle `json:"detectServices" api:"default=false"`
	// ProxyCountry must be empty: a port scan cannot go through an HTTP
	// proxy.
	ProxyCountry string `json:"proxyCountry"`
	// Concurrency is the most ports probed at once: the scan starts
	// with fewer and grows as the target answers, as nmap paces itself.
	// Zero means portscan.DefaultConcurrency.
	Concurrency int `json:"concurrency" api:"min=1,max=1000"`
	// PortTimeout, in seconds, bounds one connection attempt; a port silent that long
	// counts as filtered. Zero means portscan.DefaultTimeout.
	PortTimeout Seconds `json:"portTimeout" api:"min=0.05,max=10"`
}

// PortService is an open port and what answers on it.
type PortService = portscan.Service

// OpenPortResult lists the open ports. OpenPorts is the API's data,
// Services its services; the other fields feed meta.
type OpenPortResult struct {
	// OpenPorts are the open TCP ports, ascending; never nil.
	OpenPorts []uint16 `json:"openPorts"`
	// Services describe the open ports when detectServices was set.
	Services []PortService `json:"services,omitempty"`
	// Host is the target's host, with a port when not the default.
	Host string `json:"-"`
	// IP is the address scanned.
	IP string `json:"-"`
	// Settings are the options the scan ran with; TopPorts is the ranked
	// list size scanned, 0 when portRanges was.
	Settings OpenPortOptions `json:"-"`
}

// OpenPort scans the TCP ports of rawTarget (a URL, host name or IP
// literal) with connect scans to one address, resolved once. Closed and
// filtered ports are not errors; they are simply not listed. Errors:
// CodeInvalidURL, CodeInvalidParameters (a bad option, with the field and
// the offending token), CodeTargetNotAllowed, CodeUnableToConnect (the
// name did not resolve), CodePortScanFailed (the scan could not run or
// finish).
func (c *Client) OpenPort(ctx context.Context, rawTarget string, opts OpenPortOptions) (*OpenPortResult, error) {
	var ranking *portscan.Ranking
	var ports []uint16
	op := hostOp{name: "OpenPort", failed: CodePortScanFailed, work: "scan", unsent: "the scan could not run", prepare: func() error {
		// The ranking is read only when it is used: for topPorts, and
		// to name detected services.
		var err error
		if opts.PortRanges == "" || opts.DetectServices.Bool() {
			if ranking, err = c.ports(); err != nil {
				return NewError(CodePortScanFailed, err, "the port ranking could not be read")
			}
		}
		ports, opts.TopPorts, err = portsToScan(opts, ranking)
		return err
	}}
	return runHost(ctx, c, rawTarget, &opts, &opts.ProxyCountry, op, func(ctx context.Context, t *pinnedTarget) (*OpenPortResult, error) {
		res, err := portscan.Scan(ctx, c.guard.DialLiteral, t.Addr, ports, portscan.Options{
			Concurrency:    opts.Concurrency,
			Timeout:        opts.PortTimeout.Duration(),
			DetectServices: opts.DetectServices.Bool(),
			Names:          ranking,
			Control:        c.guard.Control,
		})
		if err != nil {
			return nil, err
		}
		open := res.Open
		if open == nil {
			open = []uint16{}
		}
		opts.Concurrency = cmp.Or(opts.Concurrency, portscan.DefaultConcurrency)
		opts.PortTimeout = cmp.Or(opts.PortTimeout, option.SecondsOf(portscan.DefaultTimeout))
		return &OpenPortResult{OpenPorts: open, Services: res.Services, Host: t.Display(), IP: t.Addr.String(), Settings: opts}, nil
	})
}

// portsToScan turns the options into the port list, with ranking for
// topPorts, and the ranked list size when one was used.
func portsToScan(opts OpenPortOptions, ranking *portscan.Ranking) ([]uint16, int, error) {
	if opts.PortRanges != "" {
		if opts.TopPorts != 0 {
			return nil, 0, InvalidParameter("topPorts", "cannot be combined with portRanges; give one of them")
		}
		ports, err := portscan.ParsePorts(opts.PortRanges)
		var rangeErr *portscan.RangeError
		if errors.As(err, &rangeErr) {
			problem := rangeErr.Reason
			if rangeErr.Token != "" {
				problem = fmt.Sprintf("%q: %s", rangeErr.Token, rangeErr.Reason)
			}
			return nil, 0, InvalidParameter("portRanges", problem)
		}
		return ports, 0, err
	}
	top := opts.TopPorts
	if top == 0 {
		top = DefaultTopPorts
	}
	ports, err := ranking.Top(top)
	if err != nil {
		return nil, 0, NewError(CodePortScanFailed, err, "the port ranking has no top %d", top)
	}
	return ports, top, nil
}

// OpenPort calls Client.OpenPort on the default client.
func OpenPort(ctx context.Context, rawTarget string, opts OpenPortOptions) (*OpenPortResult, error) {
	return onDefault(ctx, rawTarget, opts, (*Client).OpenPort)
}
