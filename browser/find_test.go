package browser

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sitediag/sitediag/net/guard"
	"github.com/sitediag/sitediag/net/netx"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"chromium-browser", "google-chrome"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	if got, err := Find(""); err != nil || got != filepath.Join(dir, "chromium-browser") {
		t.Errorf("Find(\"\") = %q, %v; want chromium-browser, the first name on PATH", got, err)
	}
	if got, err := Find("google-chrome"); err != nil || got != filepath.Join(dir, "google-chrome") {
		t.Errorf("Find(google-chrome) = %q, %v", got, err)
	}
	if _, err := Find(filepath.Join(dir, "missing")); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find(missing) = %v, want ErrNotFound", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := Find(""); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find with nothing on PATH = %v, want ErrNotFound", err)
	}
}

func TestNavigationErrorWhy(t *testing.T) {
	for _, tc := range []struct {
		err  NavigationError
		want string
	}{
		{NavigationError{Err: netx.ErrNotAllowed}, "not allowed"},
		{NavigationError{Reason: "net::ERR_TUNNEL_CONNECTION_FAILED", Err: netx.ErrBlocked}, "blocked as an ad or tracker host"},
		{NavigationError{Reason: "net::ERR_TUNNEL_CONNECTION_FAILED", Err: &guard.ResolveError{Host: "x", Err: errors.New("nx")}}, "name not resolved"},
		{NavigationError{Reason: "net::ERR_TIMED_OUT", Err: context.DeadlineExceeded}, "timed out"},
		{NavigationError{Reason: "net::ERR_NAME_NOT_RESOLVED"}, "name not resolved"},
		{NavigationError{Reason: "net::ERR_CONNECTION_REFUSED"}, "connection refused"},
		{NavigationError{Reason: "net::ERR_TOO_MANY_REDIRECTS"}, "too many redirects, or a redirect loop"},
		{NavigationError{Reason: "net::ERR_SSL_PROTOCOL_ERROR"}, "TLS handshake failed"},
		{NavigationError{Reason: "net::ERR_BLOCKED_BY_CLIENT"}, "blocked by client"},
		{NavigationError{}, "connection failed"},
	} {
		if got := tc.err.Why(); got != tc.want {
			t.Errorf("Why of %+v = %q, want %q", tc.err, got, tc.want)
		}
	}
}
