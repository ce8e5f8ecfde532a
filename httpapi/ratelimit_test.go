package httpapi_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitediag/sitediag/httpapi"
	"github.com/sitediag/sitediag/httpapi/middleware"
	"github.com/sitediag/sitediag/internal/apitest"
)

// recordingLimiter answers as told and records the identities it saw.
type recordingLimiter struct {
	mu   sync.Mutex
	ids  []string
	wait time.Duration
	err  error
}

func (l *recordingLimiter) Reserve(_ context.Context, id string, _ time.Time) (time.Duration, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ids = append(l.ids, id)
	return l.wait, l.err
}

func TestRateLimiterOption(t *testing.T) {
	key := map[string]string{"x-api-key": apitest.Key}
	t.Run("decides", func(t *testing.T) {
		lim := &recordingLimiter{wait: 3 * time.Second}
		api := apitest.New(t, apitest.Options{HTTP: httpapi.Options{RateLimit: 100, RateLimiter: lim}})
		resp := api.Do(t, "GET", "/health", nil, key)
		if resp.Status != 429 || resp.Header.Get("Retry-After") != "3" {
			t.Errorf("limiter says wait 3 s: got %d Retry-After %q, want 429 and 3", resp.Status, resp.Header.Get("Retry-After"))
		}
		if len(lim.ids) != 1 || len(lim.ids[0]) != 64 || strings.Contains(lim.ids[0], apitest.Key) {
			t.Errorf("identities %q, want one SHA-256 hex digest, never the key", lim.ids)
		}
	})
	t.Run("fails open to the in-process limit", func(t *testing.T) {
		lim := &recordingLimiter{err: errors.New("redis down")}
		api := apitest.New(t, apitest.Options{HTTP: httpapi.Options{RateLimit: 1, RateLimiter: lim}})
		var statuses []int
		for range 3 {
			statuses = append(statuses, api.Do(t, "GET", "/health", nil, key).Status)
		}
		if statuses[0] != 200 || statuses[1] != 200 || statuses[2] != 429 {
			t.Errorf("3 requests at 1/s (burst 2) with the limiter failing: got %v, want [200 200 429]", statuses)
		}
	})
}

func TestRateBurst(t *testing.T) {
	for _, c := range []struct {
		rate float64
		want int
	}{{10, 20}, {1, 2}, {0.2, 1}} {
		if got := middleware.RateBurst(c.rate); got != c.want {
			t.Errorf("RateBurst(%v) = %d, want %d", c.rate, got, c.want)
		}
	}
}

type backend struct {
	name string
	err  error
}

func (b backend) Name() string                { return b.name }
func (b backend) Check(context.Context) error { return b.err }
func (b backend) Down() string                { return b.name + " is down: limits are per replica" }

func TestBackendsInServiceHealth(t *testing.T) {
	api := apitest.New(t, apitest.Options{HTTP: httpapi.Options{Backends: []httpapi.Backend{
		backend{name: "queue"}, backend{name: "redis", err: errors.New("connection refused")},
	}}})
	resp := api.Do(t, "GET", "/health/service", nil, map[string]string{"x-api-key": apitest.Key})
	body := string(resp.Body)
	for _, want := range []string{
		`{"name":"queue","status":"healthy","message":"answers"}`,
		`{"name":"redis","status":"down","message":"redis is down: limits are per replica"}`,
		`"message":"API is up; some services are not healthy"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/health/service lacks %s:\n%s", want, body)
		}
	}
	if strings.Contains(body, "connection refused") {
		t.Errorf("/health/service shows the back end's error text: %s", body)
	}
}
