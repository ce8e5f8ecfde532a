package sitediag_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/porttest"
	"github.com/sitediag/sitediag/internal/testenv"
)

// site is a local site named site.test for c: a page that links to a
// page, a missing page and a page of a closed port, and redirects /old
// to /.
func site(t *testing.T) (base, closed string, c *sitediag.Client) {
	t.Helper()
	c, dns := spineClient(t)
	dns.Add(t, "site.test. 60 IN A 127.0.0.1")
	closed = "http://site.test:" + strconv.Itoa(int(porttest.Closed(t))) + "/"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("X-Site", "fixture")
			io.WriteString(w, `<!doctype html><title>Site</title><a href="/about">about</a> <a href="/missing">missing</a> <a href="`+closed+`">closed</a>`)
		case "/about":
			io.WriteString(w, "about")
		case "/old":
			http.Redirect(w, r, "/", http.StatusMovedPermanently)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return "http://site.test:" + port + "/", closed, c
}

// TestHTTPOperations runs each HTTP-level operation on Client: its
// success on a local site, and its documented failures.
func TestHTTPOperations(t *testing.T) {
	base, closed, c := site(t)
	ctx := context.Background()
	follow := sitediag.RequestOptions{FollowRedirect: sitediag.On}

	t.Run("TTFB", func(t *testing.T) {
		res, err := c.TTFB(ctx, base+"old", sitediag.TTFBOptions{RequestOptions: follow})
		if err != nil || res.TTFB <= 0 || res.RedirectedURL != base {
			t.Fatalf("got %+v, %v; want a positive time at %s", res, err, base)
		}
		_, err = c.TTFB(ctx, closed, sitediag.TTFBOptions{})
		wantError(t, "closed port", err, sitediag.CodeUnableToConnect)
	})
	t.Run("LoadTime", func(t *testing.T) {
		res, err := c.LoadTime(ctx, base, sitediag.LoadTimeOptions{})
		if err != nil || res.StatusCode != 200 || res.Total <= 0 || res.Total < res.Wait {
			t.Fatalf("got %+v, %v; want 200 with a total past the wait", res, err)
		}
		_, err = c.LoadTime(ctx, closed, sitediag.LoadTimeOptions{})
		wantError(t, "closed port", err, sitediag.CodeUnableToConnect)
	})
	t.Run("HTTPHeader", func(t *testing.T) {
		res, err := c.HTTPHeader(ctx, base, sitediag.HTTPHeaderOptions{})
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("got %+v, %v", res, err)
		}
		found := false
		for _, h := range res.Headers {
			found = found || h.Name == "x-site" && h.Value == "fixture"
		}
		if !found {
			t.Errorf("headers %+v lack x-site: fixture", res.Headers)
		}
		_, err = c.HTTPHeader(ctx, "http://169.254.169.254/", sitediag.HTTPHeaderOptions{})
		wantError(t, "metadata address", err, sitediag.CodeTargetNotAllowed)
	})
	t.Run("HTTPProtocol", func(t *testing.T) {
		res, err := c.HTTPProtocol(ctx, base, sitediag.HTTPProtocolOptions{})
		if err != nil || !res.HTTP11 || !res.HTTP10 {
			t.Fatalf("got %+v, %v; want HTTP/1.0 and 1.1 (a plain http server)", res, err)
		}
		_, err = c.HTTPProtocol(ctx, closed, sitediag.HTTPProtocolOptions{})
		wantError(t, "closed port", err, sitediag.CodeUnableToConnect)
	})
	t.Run("BrokenLink", func(t *testing.T) {
		res, err := c.BrokenLink(ctx, base, sitediag.BrokenLinkOptions{})
		if err != nil || res.Summary.Total != 3 || res.Summary.Successful != 1 || res.Summary.Broken != 2 {
			t.Fatalf("got %+v, %v; want 3 links: 1 fine, the missing and the closed one broken", res, err)
		}
		_, err = c.BrokenLink(ctx, closed, sitediag.BrokenLinkOptions{})
		wantError(t, "closed port", err, sitediag.CodeUnableToConnect)
	})
	t.Run("Up", func(t *testing.T) {
		res, err := c.Up(ctx, base+"old", sitediag.UpOptions{})
		if err != nil || !res.Reachable || res.StatusCode != 200 || res.RedirectedURL != base {
			t.Fatalf("got %+v, %v; want reachable, 200 at %s", res, err, base)
		}
		res, err = c.Up(ctx, closed, sitediag.UpOptions{})
		if err != nil || res.Reachable {
			t.Errorf("closed port: got %+v, %v; want a result saying it is down", res, err)
		}
	})
}

// TestPacketOperations runs Ping and MTR on Client against 127.0.0.1
// (ICMP needs root), and their refusal of an address the policy denies.
func TestPacketOperations(t *testing.T) {
	_, _, c := site(t)
	ctx := context.Background()
	t.Run("refused", func(t *testing.T) {
		_, err := c.Ping(ctx, "169.254.169.254", sitediag.PingOptions{Count: 1})
		wantError(t, "Ping", err, sitediag.CodeTargetNotAllowed)
		_, err = c.MTR(ctx, "10.0.0.1", sitediag.MTROptions{Count: 1, NoLookup: sitediag.On})
		wantError(t, "MTR", err, sitediag.CodeTargetNotAllowed)
		_, err = c.Ping(ctx, "not a host", sitediag.PingOptions{})
		wantError(t, "Ping of a bad host", err, sitediag.CodeInvalidURL)
	})
	t.Run("loopback", func(t *testing.T) {
		testenv.NeedRoot(t)
		p, err := c.Ping(ctx, "127.0.0.1", sitediag.PingOptions{Count: 2})
		if err != nil || p.Requests != 2 || p.Loss != 0 {
			t.Fatalf("Ping: %+v, %v; want 2 requests, no loss", p, err)
		}
		m, err := c.MTR(ctx, "127.0.0.1", sitediag.MTROptions{Count: 1, NoLookup: sitediag.On})
		if err != nil || len(m.Hops) != 1 || m.IP != "127.0.0.1" {
			t.Fatalf("MTR: %+v, %v; want one hop to 127.0.0.1", m, err)
		}
	})
}
