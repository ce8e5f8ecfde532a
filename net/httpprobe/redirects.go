package httpprobe

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/sitediag/sitediag/net/netx"
)

// maxHeadBytes caps what a recorder keeps of one response head.
const maxHeadBytes = 64 << 10

// RedirectChain requests target and every redirect after it, up to
// MaxRedirects, and returns each response in order, the final one
// included. Header names are in lower case and in the order the server
// sent them; repeated headers stay separate, and Location is as served.
//
// newClient builds a client whose transport passes every connection it
// makes through wrap; it is called once. A loop or more than
// MaxRedirects redirects gives ErrTooManyRedirects; a hop that gets no
// response gives a *FetchError.
func RedirectChain(ctx context.Context, newClient netx.ClientFunc, target *url.URL) ([]Hop, error) {
	return Headers(ctx, newClient, target, true)
}

// Headers is RedirectChain with the choice of following: without follow
// it returns the first response alone. The last hop is the response whose
// headers were asked for.
func Headers(ctx context.Context, newClient netx.ClientFunc, target *url.URL, follow bool) ([]Hop, error) {
	heads := &headRecorder{}
	client := newClient(heads.wrap)
	return walk(ctx, target, follow, fetchStep(client, http.MethodGet, heads.headersOf))
}

// headRecorder keeps the response head of each connection it wraps.
// Connections carry one request each (the client disables keep-alive),
// so a connection's first head is its response's.
type headRecorder struct {
	mu    sync.Mutex
	conns []*recordingConn
}

func (h *headRecorder) wrap(c net.Conn) net.Conn {
	rc := &recordingConn{Conn: c}
	h.mu.Lock()
	h.conns = append(h.conns, rc)
	h.mu.Unlock()
	return rc
}

// headersOf finds the connection that carried resp (the newest one whose
// head holds resp's status) and parses its head in order.
func (h *headRecorder) headersOf(resp *http.Response) []Header {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := len(h.conns) - 1; i >= 0; i-- {
		if head := h.conns[i].finalHead(); head != nil {
			h.conns = h.conns[:i]
			return parseHead(head)
		}
	}
	// Not recorded (should not happen): fall back to the map's order.
	var out []Header
	for name, values := range resp.Header {
		for _, v := range values {
			out = append(out, Header{Name: strings.ToLower(name), Value: v})
		}
	}
	return out
}

// recordingConn keeps the bytes read until the end of the first final
// (non-1xx) response head.
type recordingConn struct {
	net.Conn
	mu   sync.Mutex
	buf  []byte
	done bool
}

func (c *recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		if !c.done {
			c.buf = append(c.buf, p[:n]...)
			if finalHeadEnd(c.buf) >= 0 || len(c.buf) >= maxHeadBytes {
				c.done = true
			}
		}
		c.mu.Unlock()
	}
	return n, err
}

func (c *recordingConn) finalHead() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	end := finalHeadEnd(c.buf)
	if end < 0 {
		return nil
	}
	return c.buf[:end]
}

// finalHeadEnd returns where the first non-1xx response head in buf ends
// (just before its blank line), or -1 when there is none yet; parseHead
// skips the informational heads before it.
func finalHeadEnd(buf []byte) int {
	start := 0
	for {
		i := bytes.Index(buf[start:], []byte("\r\n\r\n"))
		if i < 0 {
			return -1
		}
		head := buf[start : start+i]
		if !isInformational(head) {
			return start + i
		}
		start += i + 4
	}
}

func isInformational(head []byte) bool {
	line, _, _ := bytes.Cut(head, []byte("\r\n"))
	_, code, _ := bytes.Cut(line, []byte(" "))
	return len(code) > 0 && code[0] == '1'
}

// parseHead returns the header lines of the last response head in buf.
func parseHead(buf []byte) []Header {
	heads := bytes.Split(buf, []byte("\r\n\r\n"))
	lines := strings.Split(string(heads[len(heads)-1]), "\r\n")
	var out []Header
	for _, line := range lines[1:] {
		if line == "" {
			continue
		}
		if (line[0] == ' ' || line[0] == '\t') && len(out) > 0 {
			// Obsolete line folding continues the previous value.
			out[len(out)-1].Value += " " + strings.TrimSpace(line)
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		out = append(out, Header{Name: strings.ToLower(strings.TrimSpace(name)), Value: strings.TrimSpace(value)})
	}
	return out
}
