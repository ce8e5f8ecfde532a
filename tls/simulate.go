package tls

import (
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"sync"
)

// SimulatedClient is what one real client would negotiate with the
// server: the protocol, suite and group the server chooses from that
// client's ClientHello, or why the handshake fails.
type SimulatedClient struct {
	// Client names the client and its version.
	Client string `json:"client"`
	// Protocol is the version negotiated (TLSv1.3, …); null on failure.
	Protocol *string `json:"protocol"`
	// Suite is the IANA name of the suite negotiated; null on failure.
	Suite *string `json:"suite"`
	// Group is the key-exchange group (X25519, P-256, ffdhe2048, DH for
	// a server's own prime); null for RSA key transport or failure.
	Group *string `json:"group"`
	// GroupBits is the group's size in bits (0 for a KEM); null with
	// Group.
	GroupBits *int `json:"groupBits"`
	// Error says why the client could not connect, "" when it could:
	// the server's alert, or what the client would refuse ("DH group of
	// 1024 bits, under this client's 2048").
	Error string `json:"error"`
}

// simulateClients sends each simulated client's ClientHello (its
// versions, suites in its order, groups; TLS 1.3 hellos carry an X25519
// key share, and a server wanting another of the client's groups names
// it in a HelloRetryRequest, which a real client then follows) and
// reads the server's choice.
//
// Nil when no version from SSL 3.0 up was found: there is nothing to
// simulate against.
func (s *scanner) simulateClients(ctx context.Context) []SimulatedClient {
	s.mu.Lock()
	none := len(s.versions) == 0
	s.mu.Unlock()
	if none {
		return nil
	}
	out := make([]SimulatedClient, len(simClients))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var unanswered []error
	for i, c := range simClients {
		wg.Go(func() {
			var err error
			out[i], err = s.simulate(ctx, c)
			if err != nil {
				mu.Lock()
				unanswered = append(unanswered, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if s.cutShort(ctx, "clientSimulation", unanswered...) {
		for i := range out {
			if out[i].Protocol == nil && out[i].Error == "" {
				out[i].Error = "not finished: the deadline came, or the probe went unanswered"
			}
		}
	}
	return out
}

// simulate runs one client's handshake as far as the server's choice;
// the error is the probe's when it went unanswered.
func (s *scanner) simulate(ctx context.Context, c simClient) (SimulatedClient, error) {
	sc := SimulatedClient{Client: c.name}
	h := hello{version: c.maxVersion, minVersion: c.minVersion, suites: c.suites, groups: c.groups,
		serverName: s.serverName, noCompression: true}
	rep, err := s.probe(ctx, h.marshal(), func(r io.Reader) (*reply, error) { return readReply(r, readNeeds{}) })
	switch {
	case errors.Is(err, errUnanswered) || ended(ctx) != nil:
		return sc, err
	case err != nil:
		sc.Error = "handshake refused: " + classify(err, s.opts.ProbeTimeout).reason
		return sc, nil
	case rep.version < c.minVersion || rep.version > c.maxVersion:
		sc.Error = "the server chose " + versionName(rep.version) + ", which this client does not speak"
		return sc, nil
	case !slices.Contains(c.suites, rep.suite):
		sc.Error = "the server chose " + suiteName(rep.suite) + ", which this client does not offer"
		return sc, nil
	}
	if g := rep.group; g != nil {
		switch {
		case g.Type == "DH" && c.minDHBits > 0 && g.Bits < c.minDHBits:
			sc.Error = "DH group of " + strconv.Itoa(g.Bits) + " bits, under this client's minimum of " + strconv.Itoa(c.minDHBits)
			return sc, nil
		case g.Type == "DH" && c.maxDHBits > 0 && g.Bits > c.maxDHBits:
			sc.Error = "DH group of " + strconv.Itoa(g.Bits) + " bits, over this client's maximum of " + strconv.Itoa(c.maxDHBits)
			return sc, nil
		}
		sc.Group, sc.GroupBits = ptr(g.Name), ptr(g.Bits)
	}
	sc.Protocol, sc.Suite = ptr(versionName(rep.version)), ptr(suiteName(rep.suite))
	return sc, nil
}
