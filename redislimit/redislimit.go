// Package redislimit is a rate limiter kept in Redis, so that every
// replica of the API spends one allowance per key: it implements
// middleware.RateLimiter with the generic cell rate algorithm (GCRA) in one
// Lua script, on the Redis server's clock.
//
// Each key costs one Redis string (its theoretical arrival time) that
// expires once the key is idle long enough to have its whole burst back.
//
// # Errors
//
// Reserve returns the Redis error when the server cannot be reached;
// httpapi then falls back to its in-process limiter for that request.
package redislimit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultPrefix starts every key the limiter writes when Options.Prefix
// is empty.
const DefaultPrefix = "sitediag:rate:"

// Options configure a Limiter.
type Options struct {
	// Rate is the sustained number of requests per second per key; it
	// must be above zero.
	Rate float64
	// Burst is how many requests a key may make at once after being
	// idle. If zero, 1.
	Burst int
	// Prefix starts every Redis key. If empty, DefaultPrefix.
	Prefix string
}

// Limiter is an middleware.RateLimiter in Redis. Build it with New.
type Limiter struct {
	rdb      redis.Scripter
	interval int64 // microseconds between requests at Rate
	burst    int64
	prefix   string
}

// gcra takes one request: KEYS[1] holds the theoretical arrival time in
// microseconds; ARGV[1] is the emission interval and ARGV[2] the burst.
// It returns 0 when the request may go, else the wait in microseconds.
// The clock is Redis's (TIME), so replicas' clocks do not matter.
var gcra = redis.NewScript(`
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local allow_at = tat + interval - burst * interval
if allow_at > now then
  return allow_at - now
end
local new_tat = tat + interval
redis.call('SET', KEYS[1], string.format('%.0f', new_tat), 'PX', math.ceil((new_tat - now) / 1000) + 1)
return 0
`)

// New returns a limiter of opts.Rate requests per second per key with
// opts.Burst at once, on the Redis rdb (a *redis.Client, a cluster or
// ring client).
func New(rdb redis.Scripter, opts Options) (*Limiter, error) {
	if opts.Rate <= 0 {
		return nil, fmt.Errorf("redislimit: rate %v is not above zero", opts.Rate)
	}
	if opts.Burst <= 0 {
		opts.Burst = 1
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	return &Limiter{
		rdb:      rdb,
		interval: max(1, int64(float64(time.Second/time.Microsecond)/opts.Rate)),
		burst:    int64(opts.Burst),
		prefix:   opts.Prefix,
	}, nil
}

// Reserve takes one request from id's allowance and returns zero, or how
// long id must wait for its next one (nothing is taken then). now is
// ignored: the Redis server's clock is used.
func (l *Limiter) Reserve(ctx context.Context, id string, _ time.Time) (time.Duration, error) {
	wait, err := gcra.Run(ctx, l.rdb, []string{l.prefix + id}, l.interval, l.burst).Int64()
	if err != nil {
		return 0, fmt.Errorf("redislimit: %w", err)
	}
	return time.Duration(wait) * time.Microsecond, nil
}
