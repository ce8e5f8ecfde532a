// Package redisbrand keeps /brand records in Redis, so that a record one
// replica extracted is a cache hit on every other: it implements
// sitediag.BrandCache.
//
// Each record is one Redis string of JSON (a few KiB, logo and icon URLs
// included, never the images) that Redis expires TTL after the record
// was fetched. Size Redis with maxmemory and an allkeys-lru or
// volatile-lru policy to bound the cache the way MemoryBrandCache's entry
// count does.
package redisbrand

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/defaults"
)

// DefaultPrefix starts every key the cache writes when Options.Prefix is
// empty.
const DefaultPrefix = "sitediag:brand:"

// Options configure a Cache; the zero value is the default of each.
type Options struct {
	// TTL is how long a record is served after it was fetched. If zero,
	// sitediag.DefaultBrandCacheTTL.
	TTL time.Duration
	// Prefix starts every Redis key. If empty, DefaultPrefix.
	Prefix string
	// Now returns the current time. If nil, time.Now.
	Now func() time.Time
}

// client is what the cache needs of a Redis client (*redis.Client, a
// cluster or ring client).
type client interface {
	Get(ctx context.Context, key string) *redis.StringCmd
	Set(ctx context.Context, key string, value any, expiration time.Duration) *redis.StatusCmd
}

// Cache is a sitediag.BrandCache in Redis. Build it with New.
type Cache struct {
	rdb  client
	opts Options
}

// New returns a cache on rdb.
func New(rdb client, opts Options) *Cache {
	opts.TTL = defaults.Positive(opts.TTL, sitediag.DefaultBrandCacheTTL)
	opts.Prefix = cmp.Or(opts.Prefix, DefaultPrefix)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Cache{rdb: rdb, opts: opts}
}

// Get returns the record under key, or nil when there is none or it is
// older than the TTL. A Redis failure is returned as an error.
func (c *Cache) Get(ctx context.Context, key string) (*sitediag.CachedBrand, error) {
	b, err := c.rdb.Get(ctx, c.opts.Prefix+key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("redisbrand: get: %w", err)
	}
	var e sitediag.CachedBrand
	if err := json.Unmarshal(b, &e); err != nil || e.Record == nil {
		return nil, nil // not a record of ours: a miss, overwritten by the next Set
	}
	if c.opts.Now().Sub(e.FetchedAt) > c.opts.TTL {
		return nil, nil
	}
	return &e, nil
}

// Set stores entry under key until TTL after its FetchedAt; an entry
// already that old is not stored.
func (c *Cache) Set(ctx context.Context, key string, entry *sitediag.CachedBrand) error {
	left := entry.FetchedAt.Add(c.opts.TTL).Sub(c.opts.Now())
	if left <= 0 {
		return nil
	}
	b, err := json.Marshal(entry)
	if err != nil {
		return fmt.Errorf("redisbrand: %w", err)
	}
	if err := c.rdb.Set(ctx, c.opts.Prefix+key, b, left).Err(); err != nil {
		return fmt.Errorf("redisbrand: set: %w", err)
	}
	return nil
}
