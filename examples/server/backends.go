package main

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	"github.com/redis/go-redis/v9"
	_ "gocloud.dev/blob/s3blob" // s3:// artifact stores

	"github.com/sitediag/sitediag/blobstore"
)

// openArtifacts opens the store rawURL names: file:///dir is a
// directory store; any other URL (s3://bucket?…) a bucket through
// blobstore. Empty means file://<dataDir>/artifacts.
func openArtifacts(ctx context.Context, rawURL, dataDir string) (*blobstore.Store, error) {
	if rawURL == "" {
		return blobstore.OpenDir(filepath.Join(dataDir, "artifacts"), blobstore.Options{})
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("SITEDIAG_ARTIFACTS_URL: %w", err)
	}
	if u.Scheme == "file" {
		if u.Host != "" || u.Path == "" {
			return nil, fmt.Errorf("SITEDIAG_ARTIFACTS_URL: %q is not file:///absolute/dir", rawURL)
		}
		return blobstore.OpenDir(u.Path, blobstore.Options{})
	}
	return blobstore.Open(ctx, rawURL, blobstore.Options{})
}

// Timeouts of the Redis client when the URL sets none: short, so that a
// Redis that is down costs a request little before the handler falls
// back to its own limiter.
const (
	redisDialTimeout = time.Second
	redisIOTimeout   = 500 * time.Millisecond
)

// openRedis returns a client for a redis:// or rediss:// URL (see
// redis.ParseURL; its query may set timeouts and pool sizes).
func openRedis(rawURL string) (*redis.Client, error) {
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("SITEDIAG_REDIS_URL: %w", err)
	}
	q := mustQuery(rawURL)
	if !q.Has("dial_timeout") {
		opts.DialTimeout = redisDialTimeout
	}
	if !q.Has("read_timeout") {
		opts.ReadTimeout = redisIOTimeout
	}
	if !q.Has("write_timeout") {
		opts.WriteTimeout = redisIOTimeout
	}
	if !q.Has("max_retries") {
		opts.MaxRetries = 1
	}
	opts.DialerRetries = 1 // one dial a command: a Redis that is down fails fast
	opts.DialerRetryTimeout = 10 * time.Millisecond
	return redis.NewClient(opts), nil
}

// mustQuery is the query of a URL redis.ParseURL has accepted.
func mustQuery(rawURL string) url.Values {
	u, _ := url.Parse(rawURL)
	return u.Query()
}

// redisBackend reports Redis in /health/service.
type redisBackend struct{ rdb *redis.Client }

func (redisBackend) Name() string { return "redis" }

func (b redisBackend) Check(ctx context.Context) error { return b.rdb.Ping(ctx).Err() }

func (redisBackend) Down() string {
	return "Redis does not answer: each replica limits keys on its own (up to N times the rate across N replicas), " +
		"and /brand extracts anew without the shared cache; nothing is queued for Redis"
}
