// Package blobstore keeps the API's artifacts (screenshots, PDFs,
// reports) in a bucket through gocloud.dev/blob: a local directory
// (OpenDir, on gocloud's fileblob) for one server, or Amazon S3 or any
// S3-compatible service (Open), so that every replica serves what any
// one of them stored. A Store is an artifact.Store, and hands out
// pre-signed URLs of an S3 bucket for httpapi.Options.PresignArtifacts.
//
// # Expiry
//
// An artifact is served for Options.TTL after it was stored. The store
// deletes older ones itself every Options.SweepInterval; with a lifecycle
// rule on the bucket doing that instead, turn the sweeper off.
//
// # Concurrency
//
// A Store is safe for concurrent use, by any number of replicas sharing
// one bucket: names are random and never rewritten.
package blobstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/url"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/gcerrors"

	"github.com/sitediag/sitediag/artifact"
	"github.com/sitediag/sitediag/internal/defaults"
	"github.com/sitediag/sitediag/internal/sweep"
)

// DefaultPrefix is where in the bucket artifacts are kept when
// Options.Prefix is empty.
const DefaultPrefix = "artifacts/"

// maxSignedExpiry is the longest a SigV4 pre-signed URL may live.
const maxSignedExpiry = 7 * 24 * time.Hour

// Options configure a Store; the zero value is the default of each.
type Options struct {
	// TTL is how long an artifact is served after it was stored, and
	// how long its pre-signed URLs live (at most 7 days). If zero,
	// artifact.DefaultTTL.
	TTL time.Duration
	// SweepInterval is how often expired artifacts are deleted. If zero,
	// every TTL/24 or every minute, whichever is longer; negative means
	// never (a lifecycle rule on the bucket expires them).
	SweepInterval time.Duration
	// Prefix is prepended to every artifact's key. If empty,
	// DefaultPrefix in a bucket, none in OpenDir's directory.
	Prefix string
	// Now returns the current time. If nil, time.Now.
	Now func() time.Time
}

// Store is an artifact.Store on a bucket. Build it with OpenDir, Open
// or New; Close stops the sweeper (and closes a bucket Open opened).
type Store struct {
	bucket      *blob.Bucket
	ownsBucket  bool
	description string
	local       bool // a directory of OpenDir's, which cannot sign URLs
	opts        Options
	sweep       *sweep.Loop
	// stopSweep cancels a sweep in progress when the store closes.
	stopSweep context.CancelFunc
}

// Open opens the bucket at rawURL, such as
// s3://artifacts?endpoint=http://127.0.0.1:7070&region=us-east-1&use_path_style=true
// (see gocloud.dev/blob/s3blob for every parameter; credentials come
// from the environment, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY),
// and returns a Store on it. As with gocloud.dev/blob.OpenBucket, the
// program imports the driver of the scheme: gocloud.dev/blob/s3blob
// for s3:// (file:// is always known).
func Open(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("blobstore: %w", err)
	}
	b, err := blob.OpenBucket(ctx, rawURL)
	if err != nil {
		return nil, fmt.Errorf("blobstore: open %s://%s: %w", u.Scheme, u.Host, err)
	}
	s := New(b, opts)
	s.ownsBucket = true
	s.description = u.Scheme + " bucket " + u.Host
	return s, nil
}

// OpenDir returns a Store in the directory dir, created if missing: the
// artifacts of one server, on gocloud's fileblob. It cannot sign URLs.
func OpenDir(dir string, opts Options) (*Store, error) {
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{CreateDir: true, NoTempDir: true})
	if err != nil {
		return nil, fmt.Errorf("blobstore: %w", err)
	}
	s := newStore(b, opts, "")
	s.ownsBucket = true
	s.description = "directory " + dir
	s.local = true
	return s, nil
}

// New returns a Store on bucket, which the caller keeps and closes.
func New(bucket *blob.Bucket, opts Options) *Store {
	return newStore(bucket, opts, DefaultPrefix)
}

// newStore is New with the prefix used when opts has none.
func newStore(bucket *blob.Bucket, opts Options, prefix string) *Store {
	opts.TTL = defaults.Positive(opts.TTL, artifact.DefaultTTL)
	opts.Prefix = cmp.Or(opts.Prefix, prefix)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Store{bucket: bucket, opts: opts, description: "bucket"}
	every := opts.SweepInterval
	if every == 0 {
		every = sweep.Interval(opts.TTL)
	}
	if every > 0 {
		// The sweeper serves no request: its context is its own, ended
		// by Close, and each sweep is bounded by the interval.
		var life context.Context
		life, s.stopSweep = context.WithCancel(context.Background())
		s.sweep = sweep.Start(every, func(now time.Time) {
			ctx, cancel := context.WithTimeout(life, every)
			defer cancel()
			s.Sweep(ctx, now)
		})
	}
	return s
}

// Put uploads r under a new name with the extension ext, with the
// Content-Type of that extension. Cancelling ctx aborts the upload. An
// error from r comes back wrapped.
func (s *Store) Put(ctx context.Context, ext string, r io.Reader) (string, error) {
	name, err := artifact.NewName(ext)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.bucket.NewWriter(ctx, s.opts.Prefix+name, &blob.WriterOptions{ContentType: mime.TypeByExtension("." + ext)})
	if err != nil {
		return "", fmt.Errorf("blobstore: put: %w", err)
	}
	if _, err := io.Copy(w, r); err != nil {
		cancel() // abandons the upload
		w.Close()
		return "", fmt.Errorf("blobstore: put: %w", err)
	}
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("blobstore: put: %w", err)
	}
	return name, nil
}

// Open returns the artifact, streamed from the bucket (seeking issues a
// new ranged read), and when it was stored; artifact.ErrNotFound
// for a name it never handed out, one that is gone or one older than
// the TTL. The reader is bound to ctx.
func (s *Store) Open(ctx context.Context, name string) (io.ReadSeekCloser, time.Time, error) {
	if !artifact.ValidName(name) {
		return nil, time.Time{}, artifact.ErrNotFound
	}
	r, err := s.bucket.NewReader(ctx, s.opts.Prefix+name, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, time.Time{}, artifact.ErrNotFound
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("blobstore: open: %w", err)
	}
	if s.opts.Now().Sub(r.ModTime()) > s.opts.TTL {
		r.Close()
		return nil, time.Time{}, artifact.ErrNotFound
	}
	return r, r.ModTime(), nil
}

// SignedURL returns a URL that GETs the artifact straight from the
// bucket without credentials, valid for the TTL (at most 7 days).
func (s *Store) SignedURL(ctx context.Context, name string) (string, error) {
	if !artifact.ValidName(name) {
		return "", artifact.ErrNotFound
	}
	u, err := s.bucket.SignedURL(ctx, s.opts.Prefix+name, &blob.SignedURLOptions{Expiry: min(s.opts.TTL, maxSignedExpiry)})
	if err != nil {
		return "", fmt.Errorf("blobstore: sign: %w", err)
	}
	return u, nil
}

// Check writes and deletes a probe object, so it fails when the bucket
// cannot take a new artifact.
func (s *Store) Check(ctx context.Context) error {
	name, err := artifact.NewName("check")
	if err != nil {
		return err
	}
	key := s.opts.Prefix + ".check-" + name // never a valid artifact name
	if err := s.bucket.WriteAll(ctx, key, nil, nil); err != nil {
		return fmt.Errorf("blobstore: bucket not writable: %w", err)
	}
	if err := s.bucket.Delete(ctx, key); err != nil {
		return fmt.Errorf("blobstore: bucket probe not deleted: %w", err)
	}
	return nil
}

// Sweep deletes the artifacts stored before now minus the TTL. It goes
// on past a failed deletion and returns every failure joined.
func (s *Store) Sweep(ctx context.Context, now time.Time) error {
	var errs []error
	it := s.bucket.List(&blob.ListOptions{Prefix: s.opts.Prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return errors.Join(append(errs, fmt.Errorf("blobstore: list: %w", err))...)
		}
		if obj.IsDir || now.Sub(obj.ModTime) <= s.opts.TTL {
			continue
		}
		if err := s.bucket.Delete(ctx, obj.Key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			errs = append(errs, fmt.Errorf("blobstore: delete %s: %w", obj.Key, err))
		}
	}
	return errors.Join(errs...)
}

// CanSign reports whether SignedURL can work: false for OpenDir's
// directory, true for a bucket (one that cannot sign fails in
// SignedURL).
func (s *Store) CanSign() bool { return !s.local }

// Describe names the back end for /health/service ("s3 bucket
// artifacts").
func (s *Store) Describe() string { return s.description }

// Close stops the sweeper and, when Open opened the bucket, closes it.
// Stored artifacts stay.
func (s *Store) Close() error {
	if s.sweep != nil {
		s.stopSweep()
		s.sweep.Stop()
	}
	if s.ownsBucket {
		return s.bucket.Close()
	}
	return nil
}
