package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/sweep"
)

// ErrArtifactNotFound is returned by ArtifactStore.Open for an unknown or
// expired name.
var ErrArtifactNotFound = errors.New("httpapi: artifact not found")

// ArtifactStore keeps generated files (screenshots, PDFs, reports) for a
// while and hands them back by name. Names are "<id>.<ext>" with a 128-bit
// random id in hex. Implementations must be safe for concurrent use.
type ArtifactStore interface {
	// Put stores r under a new name with the extension ext ("png") and
	// returns the name.
	Put(ctx context.Context, ext string, r io.Reader) (name string, err error)
	// Open returns the artifact and when it was stored, or
	// ErrArtifactNotFound.
	Open(ctx context.Context, name string) (io.ReadSeekCloser, time.Time, error)
	// Check reports whether the store can take a new artifact now.
	Check(ctx context.Context) error
}

// DefaultArtifactTTL is how long a LocalStore keeps an artifact when no
// TTL is given.
const DefaultArtifactTTL = 24 * time.Hour

// artifactName is the only shape of name a store hands out or opens.
var artifactName = regexp.MustCompile(`^[0-9a-f]{32}\.[a-z0-9]{1,8}$`)

// NewArtifactName returns a new artifact name with the extension ext:
// a 128-bit random id in hex, a dot, and ext (1 to 8 lower-case letters
// or digits). Stores use it in Put.
func NewArtifactName(ext string) (string, error) {
	var id [16]byte
	rand.Read(id[:])
	name := hex.EncodeToString(id[:]) + "." + ext
	if !ValidArtifactName(name) {
		return "", fmt.Errorf("httpapi: bad artifact extension %q", ext)
	}
	return name, nil
}

// ValidArtifactName reports whether name has the shape NewArtifactName
// gives; stores refuse any other in Open.
func ValidArtifactName(name string) bool { return artifactName.MatchString(name) }

// LocalStore keeps artifacts as files in one directory and deletes them
// after a TTL. Build it with NewLocalStore; Close stops the sweeper.
type LocalStore struct {
	dir   string
	ttl   time.Duration
	sweep *sweep.Loop
}

// NewLocalStore creates dir if needed and starts a sweeper that deletes
// artifacts older than ttl (DefaultArtifactTTL when zero) every ttl/24 or
// every minute, whichever is longer.
func NewLocalStore(dir string, ttl time.Duration) (*LocalStore, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("httpapi: artifact store: %w", err)
	}
	return newLocalStore(dir, ttl), nil
}

// newLocalStore is NewLocalStore without creating dir: Put and Check
// create it when it is missing.
func newLocalStore(dir string, ttl time.Duration) *LocalStore {
	if ttl <= 0 {
		ttl = DefaultArtifactTTL
	}
	s := &LocalStore{dir: dir, ttl: ttl}
	s.sweep = sweep.Start(sweep.Interval(ttl), func(now time.Time) { s.Sweep(now) })
	return s
}

// defaultStore is the store of every handler built without
// Options.Artifacts: one per process, in <temporary directory>/sitediag/artifacts
// (where examples/server keeps them by default), with DefaultArtifactTTL.
var defaultStore = sync.OnceValue(func() *LocalStore {
	return newLocalStore(filepath.Join(os.TempDir(), "sitediag", "artifacts"), 0)
})

// Put writes r to a new file.
func (s *LocalStore) Put(ctx context.Context, ext string, r io.Reader) (string, error) {
	name, err := NewArtifactName(ext)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(s.dir, 0o750); err != nil {
		return "", fmt.Errorf("httpapi: artifact store: %w", err)
	}
	f, err := os.CreateTemp(s.dir, ".put-*")
	if err != nil {
		return "", fmt.Errorf("httpapi: artifact store: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := io.Copy(f, ctxReader{ctx, r}); err != nil {
		f.Close()
		return "", fmt.Errorf("httpapi: artifact store: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("httpapi: artifact store: %w", err)
	}
	if err := os.Rename(f.Name(), filepath.Join(s.dir, name)); err != nil {
		return "", fmt.Errorf("httpapi: artifact store: %w", err)
	}
	return name, nil
}

// Open opens a stored artifact that has not expired.
func (s *LocalStore) Open(_ context.Context, name string) (io.ReadSeekCloser, time.Time, error) {
	if !ValidArtifactName(name) {
		return nil, time.Time{}, ErrArtifactNotFound
	}
	f, err := os.Open(filepath.Join(s.dir, name))
	if err != nil {
		return nil, time.Time{}, ErrArtifactNotFound
	}
	info, err := f.Stat()
	if err != nil || time.Since(info.ModTime()) > s.ttl {
		f.Close()
		return nil, time.Time{}, ErrArtifactNotFound
	}
	return f, info.ModTime(), nil
}

// Check writes and removes a probe file.
func (s *LocalStore) Check(context.Context) error {
	if err := os.MkdirAll(s.dir, 0o750); err != nil {
		return fmt.Errorf("httpapi: artifact store not writable: %w", err)
	}
	f, err := os.CreateTemp(s.dir, ".check-*")
	if err != nil {
		return fmt.Errorf("httpapi: artifact store not writable: %w", err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// Sweep deletes the artifacts stored before now minus the TTL.
func (s *LocalStore) Sweep(now time.Time) error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) <= s.ttl {
			continue
		}
		os.Remove(filepath.Join(s.dir, e.Name()))
	}
	return nil
}

// Close stops the sweeper; stored files stay.
func (s *LocalStore) Close() error {
	s.sweep.Stop()
	return nil
}

// ctxReader stops a copy when ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// urlSigner is an artifact store that can hand out a URL of its own for
// an artifact, valid without credentials for a while (a pre-signed
// bucket URL).
type urlSigner interface {
	SignedURL(ctx context.Context, name string) (string, error)
}

// signer returns the store's urlSigner when PresignArtifacts asks for
// one.
func (h *Handler) signer() (urlSigner, bool) {
	if !h.opts.PresignArtifacts {
		return nil, false
	}
	s, ok := h.opts.Artifacts.(urlSigner)
	return s, ok
}

// artifact serves GET /artifacts/:name without a key: the 128-bit name is
// the capability. The artifact is streamed from the store, or with
// PresignArtifacts the answer is a redirect to a fresh signed URL.
func (h *Handler) artifact(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	name := ps.ByName("name")
	notFound := sitediag.NewError(sitediag.CodeNotFound, nil, "no such artifact")
	if s, ok := h.signer(); ok {
		// Open checks that the artifact exists and has not expired.
		f, _, err := h.opts.Artifacts.Open(r.Context(), name)
		if err != nil {
			h.writeError(w, r, notFound)
			return
		}
		f.Close()
		u, err := s.SignedURL(r.Context(), name)
		if err != nil {
			h.writeError(w, r, sitediag.NewError(sitediag.CodeInternal, err, "the artifact link could not be signed"))
			return
		}
		http.Redirect(w, r, u, http.StatusFound)
		return
	}
	f, modTime, err := h.opts.Artifacts.Open(r.Context(), name)
	if err != nil {
		h.writeError(w, r, notFound)
		return
	}
	defer f.Close()
	policy := contentPolicy
	ct := mime.TypeByExtension(filepath.Ext(name))
	if filepath.Ext(name) == "."+lighthouseReportExt {
		ct = "text/html; charset=utf-8"
		if policy, err = lighthouseReportPolicy(f); err == nil {
			_, err = f.Seek(0, io.SeekStart)
		}
		if err != nil {
			h.writeError(w, r, sitediag.NewError(sitediag.CodeInternal, err, "the artifact could not be read"))
			return
		}
	}
	if ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", policy)
	http.ServeContent(w, r, name, modTime, f)
}

// storeArtifact puts body in the store and returns its absolute URL,
// built on the public base of the request ctx belongs to (or signed by
// the store, with PresignArtifacts). An error that
// body's reads return as a *sitediag.Error comes back wrapped, so the
// operation's own code reaches the caller.
func (h *Handler) storeArtifact(ctx context.Context, ext string, body io.Reader) (string, error) {
	c := &counted{Reader: body}
	name, err := h.opts.Artifacts.Put(ctx, ext, c)
	if err != nil {
		return "", err
	}
	h.metrics.artifacts.Inc()
	h.metrics.artifactBytes.Add(float64(c.n.Load()))
	if s, ok := h.signer(); ok {
		return s.SignedURL(ctx, name)
	}
	return requestInfoOf(ctx).base + "/artifacts/" + name, nil
}

// publicBase is Options.PublicURL, or the scheme and Host the request came
// in on with the prefix the handler is mounted under.
func (h *Handler) publicBase(r *http.Request) string {
	if h.baseURL != "" {
		return h.baseURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + mountPrefix(r)
}

// mountPrefix is the path the handler is mounted under ("/diag" behind
// http.StripPrefix("/diag", …)): what the path the request was sent to
// has before the path the handler routes. "" when it is mounted at the
// root, or the original path is not known.
func mountPrefix(r *http.Request) string {
	sent, err := url.ParseRequestURI(r.RequestURI)
	if err != nil {
		return ""
	}
	prefix, ok := strings.CutSuffix(sent.EscapedPath(), r.URL.EscapedPath())
	if !ok {
		return ""
	}
	return prefix
}
