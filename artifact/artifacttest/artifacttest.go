// Package artifacttest is the conformance suite of artifact.Store: what
// every store must do, run against each of them (blobstore's local
// directory and S3 bucket, or an embedder's own) by calling Run from a
// test.
package artifacttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitediag/sitediag/artifact"
)

// Harness builds the stores the suite tests.
type Harness struct {
	// New returns an empty store that keeps an artifact for ttl, reading
	// the current time from now. It closes the store when t ends.
	New func(t *testing.T, ttl time.Duration, now func() time.Time) artifact.Store
	// Stored lists the keys the store's back end holds, so the suite can
	// tell that a failed Put and a sweep leave nothing behind. A key
	// ends with the artifact's name.
	Stored func(t *testing.T) []string
}

// Sweeper is a store that deletes expired artifacts when asked; the
// suite checks what a sweep removes when a store is one.
type Sweeper interface {
	Sweep(ctx context.Context, now time.Time) error
}

// clock is a settable time.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// payload is an image-sized body with a recognisable end.
var payload = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte("pixels"), 50_000)...)

// Run runs the suite, each case on a new store.
func Run(t *testing.T, h Harness) {
	const ttl = time.Hour
	open := func(t *testing.T) (artifact.Store, *clock) {
		c := &clock{now: time.Now()}
		return h.New(t, ttl, c.Now), c
	}
	ctx := context.Background()

	t.Run("PutOpen", func(t *testing.T) {
		s, c := open(t)
		name := put(t, s, "png", payload)
		if !artifact.ValidName(name) || !strings.HasSuffix(name, ".png") {
			t.Fatalf("Put named it %q, want <32 hex>.png", name)
		}
		f, mod, err := s.Open(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if got, _ := io.ReadAll(f); !bytes.Equal(got, payload) {
			t.Errorf("read %d bytes, want the %d put", len(got), len(payload))
		}
		if _, err := f.Seek(int64(len(payload)-6), io.SeekStart); err != nil {
			t.Fatal(err)
		}
		if tail, _ := io.ReadAll(f); string(tail) != "pixels" {
			t.Errorf("read after a Seek to 6 bytes from the end: %q, want %q", tail, "pixels")
		}
		if d := c.Now().Sub(mod); d < -time.Minute || d > time.Minute {
			t.Errorf("stored at %v, want about %v", mod, c.Now())
		}
		wantStored(t, h, name)
	})

	t.Run("BadExtension", func(t *testing.T) {
		s, _ := open(t)
		for _, ext := range []string{"", "PNG", "tar.gz", "../png", "toolongext"} {
			if name, err := s.Put(ctx, ext, strings.NewReader("x")); err == nil {
				t.Errorf("Put with extension %q = %q, want an error", ext, name)
			}
		}
		wantStored(t, h)
	})

	t.Run("NotFound", func(t *testing.T) {
		s, _ := open(t)
		put(t, s, "png", []byte("x"))
		for _, name := range []string{"", "0123456789abcdef0123456789abcdef.png", "../x.png", "artifacts", ".", "..",
			strings.Repeat("0", 32) + ".PNG"} {
			if f, _, err := s.Open(ctx, name); !errors.Is(err, artifact.ErrNotFound) {
				if f != nil {
					f.Close()
				}
				t.Errorf("Open(%q): got %v, want ErrNotFound", name, err)
			}
		}
	})

	t.Run("Expiry", func(t *testing.T) {
		s, c := open(t)
		name := put(t, s, "pdf", []byte("%PDF-1.7"))
		sweeper, sweeps := s.(Sweeper)
		if sweeps {
			if err := sweeper.Sweep(ctx, c.Now()); err != nil {
				t.Fatal(err)
			}
		}
		f, _, err := s.Open(ctx, name)
		if err != nil {
			t.Fatalf("Open within the TTL (after a sweep): %v", err)
		}
		f.Close()
		c.Add(ttl + time.Minute)
		if f, _, err := s.Open(ctx, name); !errors.Is(err, artifact.ErrNotFound) {
			if f != nil {
				f.Close()
			}
			t.Errorf("Open past the TTL: got %v, want ErrNotFound", err)
		}
		if sweeps {
			if err := sweeper.Sweep(ctx, c.Now()); err != nil {
				t.Fatal(err)
			}
			wantStored(t, h)
		}
	})

	t.Run("FailingBody", func(t *testing.T) {
		s, _ := open(t)
		if _, err := s.Put(ctx, "png", &failingReader{}); !errors.Is(err, errBody) {
			t.Fatalf("Put of a failing body: got %v, want it wrapped", err)
		}
		wantStored(t, h)
	})

	t.Run("Cancelled", func(t *testing.T) {
		s, _ := open(t)
		cctx, cancel := context.WithCancel(ctx)
		r := &failingReader{cancel: cancel}
		if name, err := s.Put(cctx, "png", r); err == nil {
			t.Fatalf("Put whose context ends midway = %q, want an error", name)
		}
		wantStored(t, h)
	})

	t.Run("Concurrent", func(t *testing.T) {
		s, _ := open(t)
		const n = 8
		names := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				name, err := s.Put(ctx, "txt", strings.NewReader(fmt.Sprint("artifact ", i)))
				if err != nil {
					t.Error(err)
				}
				names[i] = name
			})
		}
		wg.Wait()
		for i, name := range names {
			f, _, err := s.Open(ctx, name)
			if err != nil {
				t.Fatalf("Open(%q): %v", name, err)
			}
			got, _ := io.ReadAll(f)
			f.Close()
			if want := fmt.Sprint("artifact ", i); string(got) != want {
				t.Errorf("artifact %d reads %q, want %q", i, got, want)
			}
		}
		wantStored(t, h, names...)
	})

	t.Run("Check", func(t *testing.T) {
		s, _ := open(t)
		if err := s.Check(ctx); err != nil {
			t.Fatalf("Check: %v", err)
		}
		wantStored(t, h)
	})
}

// put stores body with the extension ext.
func put(t *testing.T, s artifact.Store, ext string, body []byte) string {
	t.Helper()
	name, err := s.Put(context.Background(), ext, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// wantStored checks that the back end holds the artifacts names and
// nothing else.
func wantStored(t *testing.T, h Harness, names ...string) {
	t.Helper()
	keys := h.Stored(t)
	var extra []string
	for _, k := range keys {
		if !slices.ContainsFunc(names, func(n string) bool { return strings.HasSuffix(k, n) }) {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 || len(keys) != len(names) {
		t.Errorf("the back end holds %q, want exactly %q", keys, names)
	}
}

var errBody = errors.New("artifacttest: body failed")

// failingReader gives four 64 KiB chunks, then fails with errBody, or
// when cancel is set calls it instead and goes on giving chunks.
type failingReader struct {
	n      int
	cancel context.CancelFunc
}

func (r *failingReader) Read(p []byte) (int, error) {
	r.n++
	if r.n > 4 {
		if r.cancel == nil {
			return 0, errBody
		}
		r.cancel()
	}
	if r.n > 1000 {
		return 0, io.EOF // the store went on reading past its cancelled context
	}
	return copy(p, bytes.Repeat([]byte("x"), min(len(p), 1<<16))), nil
}
