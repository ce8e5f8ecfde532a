package redislimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/sitediag/sitediag/internal/redistest"
	"github.com/sitediag/sitediag/redislimit"
)

func newLimiter(t *testing.T, addr string, opts redislimit.Options) *redislimit.Limiter {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	l, err := redislimit.New(rdb, opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestSharedBurst spends a key's burst through one limiter and finds it
// spent through another on the same Redis, as two replicas would.
func TestSharedBurst(t *testing.T) {
	srv := redistest.Start(t)
	opts := redislimit.Options{Rate: 1, Burst: 3}
	a, b := newLimiter(t, srv.Addr, opts), newLimiter(t, srv.Addr, opts)
	ctx := context.Background()
	for i, l := range []*redislimit.Limiter{a, b, a} {
		if d, err := l.Reserve(ctx, "key1", time.Time{}); err != nil || d != 0 {
			t.Fatalf("request %d: got wait %v, err %v; want 0, nil", i+1, d, err)
		}
	}
	d, err := b.Reserve(ctx, "key1", time.Time{})
	if err != nil || d <= 0 || d > time.Second {
		t.Fatalf("4th request: got wait %v, err %v; want in (0, 1s]", d, err)
	}
	if d, err := a.Reserve(ctx, "key2", time.Time{}); err != nil || d != 0 {
		t.Errorf("another key: got wait %v, err %v; want 0, nil", d, err)
	}
	time.Sleep(d + 10*time.Millisecond)
	if d, err := a.Reserve(ctx, "key1", time.Time{}); err != nil || d != 0 {
		t.Errorf("after the wait: got wait %v, err %v; want 0, nil", d, err)
	}
}

// TestKeyExpires checks that an idle key's state is dropped once its
// burst is whole again.
func TestKeyExpires(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rdb.Close()
	l, err := redislimit.New(rdb, redislimit.Options{Rate: 100, Burst: 2, Prefix: "p:"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := l.Reserve(ctx, "k", time.Time{}); err != nil {
		t.Fatal(err)
	}
	ttl, err := rdb.PTTL(ctx, "p:k").Result()
	if err != nil || ttl <= 0 || ttl > 50*time.Millisecond {
		t.Errorf("PTTL p:k = %v, %v; want in (0, 50ms]", ttl, err)
	}
}

func TestRedisDown(t *testing.T) {
	srv := redistest.Start(t)
	l := newLimiter(t, srv.Addr, redislimit.Options{Rate: 1})
	srv.Kill()
	if _, err := l.Reserve(context.Background(), "k", time.Time{}); err == nil {
		t.Error("Reserve with Redis killed: got nil error, want one")
	}
}

func TestNewRefusesNoRate(t *testing.T) {
	if _, err := redislimit.New(nil, redislimit.Options{}); err == nil {
		t.Error("New with rate 0: got nil error")
	}
}
