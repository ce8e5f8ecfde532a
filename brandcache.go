package sitediag

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sitediag/sitediag/brand"
)

// BrandCache keeps brand records between requests, by key (the domain
// and the mode). Implementations must be safe for concurrent use; an
// operator may plug in a shared store.
type BrandCache interface {
	// Get returns the entry for key, or nil when there is none (or it
	// expired).
	Get(ctx context.Context, key string) (*CachedBrand, error)
	// Set stores entry under key.
	Set(ctx context.Context, key string, entry *CachedBrand) error
}

// CachedBrand is one cached record.
type CachedBrand struct {
	Record    *brand.Record `json:"record"`
	FetchedAt time.Time     `json:"fetchedAt"`
	Mode      string        `json:"mode"`
}

// Defaults of the in-process brand cache.
const (
	DefaultBrandCacheSize = 1000
	DefaultBrandCacheTTL  = 24 * time.Hour
)

// MemoryBrandCache is the default BrandCache: an in-process LRU with a
// TTL, written to a file (when it has one) after each Set and read back
// by NewMemoryBrandCache, so a restart keeps it.
type MemoryBrandCache struct {
	size int
	ttl  time.Duration
	file string
	now  func() time.Time

	mu      sync.Mutex
	order   *list.List // front: most recently used; values are *cacheItem
	entries map[string]*list.Element
}

type cacheItem struct {
	Key   string       `json:"key"`
	Entry *CachedBrand `json:"entry"`
}

// NewMemoryBrandCache returns a cache of at most size entries (0 means
// DefaultBrandCacheSize) that expire after ttl (0 means
// DefaultBrandCacheTTL), persisted to file when it is not empty (a
// missing or unreadable file starts an empty cache).
func NewMemoryBrandCache(size int, ttl time.Duration, file string) *MemoryBrandCache {
	if size <= 0 {
		size = DefaultBrandCacheSize
	}
	if ttl <= 0 {
		ttl = DefaultBrandCacheTTL
	}
	c := &MemoryBrandCache{size: size, ttl: ttl, file: file, now: time.Now, order: list.New(), entries: map[string]*list.Element{}}
	if file != "" {
		if b, err := os.ReadFile(file); err == nil {
			var items []cacheItem
			if json.Unmarshal(b, &items) == nil {
				for _, it := range items {
					if it.Entry != nil && it.Entry.Record != nil {
						c.entries[it.Key] = c.order.PushBack(&cacheItem{it.Key, it.Entry})
					}
				}
			}
		}
	}
	return c
}

// Get implements BrandCache.
func (c *MemoryBrandCache) Get(_ context.Context, key string) (*CachedBrand, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil, nil
	}
	it := el.Value.(*cacheItem)
	if c.now().Sub(it.Entry.FetchedAt) > c.ttl {
		c.order.Remove(el)
		delete(c.entries, key)
		return nil, nil
	}
	c.order.MoveToFront(el)
	return it.Entry, nil
}

// Set implements BrandCache.
func (c *MemoryBrandCache) Set(_ context.Context, key string, entry *CachedBrand) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		el.Value.(*cacheItem).Entry = entry
		c.order.MoveToFront(el)
	} else {
		c.entries[key] = c.order.PushFront(&cacheItem{key, entry})
	}
	for c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.entries, last.Value.(*cacheItem).Key)
	}
	return c.persist()
}

// persist writes the entries, most recently used first, atomically.
func (c *MemoryBrandCache) persist() error {
	if c.file == "" {
		return nil
	}
	items := make([]cacheItem, 0, c.order.Len())
	for el := c.order.Front(); el != nil; el = el.Next() {
		items = append(items, *el.Value.(*cacheItem))
	}
	b, err := json.Marshal(items)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.file), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.file), ".brand-cache-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), c.file)
}
