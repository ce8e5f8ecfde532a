package tls

import (
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// delayingProxy connects every connection to upstream at once and
// holds what the client sends for delay before passing it on, the way
// a slow path to a server does: a server that serves one connection at
// a time (s_server) waits on each meanwhile.
//
// With serial, it serves one connection at a time, each in full, as a
// single-threaded front does: connections queue, and each costs delay.
func delayingProxy(t *testing.T, upstream string, delay time.Duration, serial bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	t.Cleanup(func() {
		close(done)
		ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			relay := func() {
				defer c.Close()
				u, err := net.Dial("tcp", upstream)
				if err != nil {
					return
				}
				defer u.Close()
				select {
				case <-time.After(delay):
				case <-done:
					return
				}
				go func() {
					io.Copy(u, c)
					u.(*net.TCPConn).CloseWrite()
				}()
				io.Copy(c, u)
			}
			if serial {
				relay()
			} else {
				wg.Go(relay)
			}
		}
	})
	return ln.Addr().String()
}

// TestSlowServerNeverSilentlyPartial: s_server with four TLS 1.2 suites
// in its own order behind a proxy that holds each connection 2 s or 4 s.
// With probeTimeout above the delay, the scan is complete: four suites,
// server order, resumption tested. Below it, no probe answers: the scan
// fails naming the timeout, or, when some answered, says partial and
// what it did not finish; a suite list or an order is never reported
// from probes that did not answer.
func TestSlowServerNeverSilentlyPartial(t *testing.T) {
	f := needOpenSSL(t)
	suites := "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-SHA:ECDHE-RSA-AES128-SHA"
	want := []string{"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
		"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"}
	for _, delay := range []time.Duration{2 * time.Second, 4 * time.Second} {
		for _, timeout := range []time.Duration{delay - time.Second, delay + time.Second} {
			t.Run(delay.String()+"/probeTimeout "+timeout.String(), func(t *testing.T) {
				t.Parallel()
				// a server of its own: s_server serves one connection at a time
				addr := f.startSServer(t, "-tls1_2", "-serverpref", "-cipher", suites)
				proxy := delayingProxy(t, addr, delay, false)
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				start := time.Now()
				res, err := Scan(ctx, dialer(proxy), "real.test", Options{Roots: f.rootPool, Now: func() time.Time { return testNow }, ProbeTimeout: timeout})
				t.Logf("after %v: err %v", time.Since(start).Round(time.Millisecond), err)
				if timeout < delay {
					if err == nil {
						got := res.CipherSuites.TLS12
						t.Logf("suites %v, preference %s, partial %v, unfinished %+v", got.Suites, got.Preference, res.Partial, res.Unfinished)
						if !res.Partial || len(got.Suites) > 0 && !slices.Contains(res.Unfinished.CipherSuites, "tls12") {
							t.Errorf("got partial %v, unfinished %+v; want partial with tls12's suites unfinished", res.Partial, res.Unfinished)
						}
						return
					}
					if reason(err) != "no answer in "+seconds(timeout) {
						t.Errorf("got %v, want no answer in %s", err, seconds(timeout))
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				got := res.CipherSuites.TLS12
				t.Logf("suites %v, preference %s, partial %v, unfinished %+v, sessionId %+v", got.Suites, got.Preference, res.Partial, res.Unfinished, res.Advisory.SessionIDResumption)
				if !slices.Equal(got.Suites, want) || got.Preference != PreferenceServer || res.Partial {
					t.Errorf("got %v preference %s partial %v; want %v in server order, not partial", got.Suites, got.Preference, res.Partial, want)
				}
				if !res.Advisory.SessionIDResumption.Found() {
					t.Errorf("sessionIdResumption: got %+v, want supported", res.Advisory.SessionIDResumption)
				}
			})
		}
	}
}

// TestSerialSlowFrontNeverSilentlyPartial: the same server behind a
// front that serves one connection at a time, each held 2 s, with
// probeTimeout 3 s: parallel probes queue behind each other and time
// out. Whatever the scan gets through, it never reports a shorter suite
// list or an order as if complete: the list is the server's four in its
// order, or tls12 is named unfinished and the result is partial. (Before
// issue 26, the timed-out probes read as refusals: 1 or 2 suites,
// preference unknown, partial false.)
func TestSerialSlowFrontNeverSilentlyPartial(t *testing.T) {
	f := needOpenSSL(t)
	addr := f.startSServer(t, "-tls1_2", "-serverpref", "-cipher",
		"ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-SHA:ECDHE-RSA-AES128-SHA")
	proxy := delayingProxy(t, addr, 2*time.Second, true)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := Scan(ctx, dialer(proxy), "real.test", Options{Roots: f.rootPool, Now: func() time.Time { return testNow }, ProbeTimeout: 3 * time.Second})
	if err != nil {
		t.Logf("no version found: %v", err)
		if !errors.Is(err, ErrNoProtocol) || !strings.Contains(reason(err), "no answer") {
			t.Errorf("got %v, want ErrNoProtocol saying a version went unanswered (not a refusal)", err)
		}
		return
	}
	got := res.CipherSuites.TLS12
	t.Logf("suites %v, preference %s, partial %v, unfinished %+v", got.Suites, got.Preference, res.Partial, res.Unfinished)
	complete := slices.Equal(got.Suites, []string{"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
		"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"}) && got.Preference == PreferenceServer
	named := res.Partial && (slices.Contains(res.Unfinished.CipherSuites, "tls12") || slices.Contains(res.Unfinished.Protocols, "tls12"))
	if !complete && !named {
		t.Errorf("got suites %v preference %s, partial %v, unfinished %+v: an incomplete list reported as complete", got.Suites, got.Preference, res.Partial, res.Unfinished)
	}
}
