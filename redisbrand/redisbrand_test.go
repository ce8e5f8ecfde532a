package redisbrand_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/brand"
	"github.com/sitediag/sitediag/internal/redistest"
	"github.com/sitediag/sitediag/redisbrand"
)

// The cache is what sitediag.Config.BrandCache takes.
var _ sitediag.BrandCache = (*redisbrand.Cache)(nil)

func TestSharedAcrossClients(t *testing.T) {
	srv := redistest.Start(t)
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	open := func() *redisbrand.Cache {
		rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
		t.Cleanup(func() { rdb.Close() })
		return redisbrand.New(rdb, redisbrand.Options{TTL: time.Hour, Now: clock})
	}
	a, b := open(), open()
	ctx := context.Background()

	if got, err := b.Get(ctx, "example.com|standard"); got != nil || err != nil {
		t.Fatalf("Get before Set = %v, %v; want nil, nil", got, err)
	}
	want := &sitediag.CachedBrand{Record: &brand.Record{Name: "Example"}, FetchedAt: now.Add(-time.Minute), Mode: "standard"}
	if err := a.Set(ctx, "example.com|standard", want); err != nil {
		t.Fatal(err)
	}
	got, err := b.Get(ctx, "example.com|standard")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("record set by one client, read by another (-want +got):\n%s", diff)
	}

	now = now.Add(time.Hour)
	if got, err := b.Get(ctx, "example.com|standard"); got != nil || err != nil {
		t.Errorf("Get past the TTL = %v, %v; want nil, nil", got, err)
	}
	if err := a.Set(ctx, "old", &sitediag.CachedBrand{Record: &brand.Record{}, FetchedAt: now.Add(-2 * time.Hour)}); err != nil {
		t.Errorf("Set of an expired entry: %v", err)
	}
}

func TestRedisExpires(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rdb.Close()
	c := redisbrand.New(rdb, redisbrand.Options{TTL: time.Hour})
	ctx := context.Background()
	if err := c.Set(ctx, "k", &sitediag.CachedBrand{Record: &brand.Record{}, FetchedAt: time.Now().Add(-30 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	ttl, err := rdb.TTL(ctx, redisbrand.DefaultPrefix+"k").Result()
	if err != nil || ttl < 29*time.Minute || ttl > 30*time.Minute {
		t.Errorf("TTL = %v, %v; want about 30m", ttl, err)
	}
}

func TestRedisDown(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1})
	defer rdb.Close()
	c := redisbrand.New(rdb, redisbrand.Options{})
	srv.Kill()
	ctx := context.Background()
	if _, err := c.Get(ctx, "k"); err == nil {
		t.Error("Get with Redis killed: got nil error")
	}
	if err := c.Set(ctx, "k", &sitediag.CachedBrand{Record: &brand.Record{}, FetchedAt: time.Now()}); err == nil {
		t.Error("Set with Redis killed: got nil error")
	}
}
