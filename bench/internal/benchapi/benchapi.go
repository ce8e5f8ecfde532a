// Package benchapi serves sitediag's HTTP API to the bench commands that
// measure through it, and calls it as they do.
package benchapi

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/httpapi"
)

// Key is the API key the served API accepts.
const Key = "bench-key"

// Serve serves the HTTP API over c with opts on a loopback port, its
// APIKeys Key, no rate limit, and its request log formatted as
// examples/server formats it, then discarded: its cost is part of the
// request path. Close it.
func Serve(c *sitediag.Client, opts httpapi.Options) *httptest.Server {
	opts.APIKeys, opts.RateLimit = []string{Key}, -1
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	return httptest.NewServer(httpapi.New(c, opts))
}

// Post posts body, JSON, to operation op of the API at base with Key,
// through hc, and returns the response's body; a status other than 200
// is an error.
func Post(hc *http.Client, base, op string, body []byte) ([]byte, error) {
	req, err := http.NewRequest(http.MethodPost, base+op, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", Key)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %d %s", op, resp.StatusCode, out)
	}
	return out, nil
}
