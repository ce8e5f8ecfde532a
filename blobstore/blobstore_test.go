package blobstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag/blobstore"
	"github.com/sitediag/sitediag/httpapi"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/s3test"
)

// The store is what httpapi.Options.Artifacts takes.
var _ httpapi.ArtifactStore = (*blobstore.Store)(nil)

var png = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte("pixels"), 50_000)...)

// open starts versitygw and opens a store on its bucket by URL, with the
// clock now.
func open(t *testing.T, now *time.Time) (*s3test.Server, *blobstore.Store) {
	t.Helper()
	srv := s3test.Start(t)
	srv.SetEnv(t)
	opts := blobstore.Options{TTL: time.Hour, SweepInterval: -1}
	if now != nil {
		opts.Now = func() time.Time { return *now }
	}
	s, err := blobstore.Open(context.Background(), srv.URL(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return srv, s
}

func TestPutOpenSweep(t *testing.T) {
	now := time.Now()
	srv, s := open(t, &now)
	ctx := context.Background()

	name, err := s.Put(ctx, "png", bytes.NewReader(png))
	if err != nil {
		t.Fatal(err)
	}
	if !httpapi.ValidArtifactName(name) || !strings.HasSuffix(name, ".png") {
		t.Fatalf("Put named it %q, want <32 hex>.png", name)
	}
	onDisk, err := os.ReadFile(filepath.Join(srv.Root, srv.Bucket, "artifacts", name))
	if err != nil || !bytes.Equal(onDisk, png) {
		t.Fatalf("object in the POSIX back end: %d bytes, %v; want the %d bytes put", len(onDisk), err, len(png))
	}
	f, mod, err := s.Open(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(int64(len(png)-6), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	tail, _ := io.ReadAll(f)
	f.Close()
	if string(tail) != "pixels" {
		t.Errorf("read after Seek to 6 bytes from the end: got %q, want %q", tail, "pixels")
	}
	if d := now.Sub(mod); d < -time.Minute || d > time.Minute {
		t.Errorf("stored at %v, want about %v", mod, now)
	}

	for _, bad := range []string{"0123456789abcdef0123456789abcdef.png", "../x.png", "artifacts"} {
		if _, _, err := s.Open(ctx, bad); !errors.Is(err, httpapi.ErrArtifactNotFound) {
			t.Errorf("Open(%q): got %v, want ErrArtifactNotFound", bad, err)
		}
	}
	if err := s.Check(ctx); err != nil {
		t.Errorf("Check: %v", err)
	}

	if err := s.Sweep(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	f, _, err = s.Open(ctx, name)
	if err != nil {
		t.Fatalf("Open after a sweep within the TTL: %v", err)
	}
	f.Close()
	now = now.Add(2 * time.Hour)
	if _, _, err := s.Open(ctx, name); !errors.Is(err, httpapi.ErrArtifactNotFound) {
		t.Errorf("Open past the TTL: got %v, want ErrArtifactNotFound", err)
	}
	if err := s.Sweep(ctx, now); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Join(srv.Root, srv.Bucket, "artifacts"))
	for _, e := range entries {
		t.Errorf("left in the bucket after a sweep past the TTL: %s", e.Name())
	}
}

func TestSignedURL(t *testing.T) {
	_, s := open(t, nil)
	ctx := context.Background()
	name, err := s.Put(ctx, "png", bytes.NewReader(png))
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.SignedURL(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(u) // no credentials: the signature is the capability
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(body, png) {
		t.Fatalf("GET signed URL: %d, %d bytes; want 200 and the %d bytes put", resp.StatusCode, len(body), len(png))
	}
	if ct := resp.Header.Get("Content-Type"); ct != "image/png" {
		t.Errorf("Content-Type from the bucket = %q, want image/png", ct)
	}
	forged := strings.Replace(u, name, strings.Repeat("0", 32)+".png", 1)
	if resp, err := http.Get(forged); err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Errorf("GET with another name under the same signature: 200, want a refusal")
		}
	}
}

type failingReader struct{ n int }

var errBody = errors.New("body failed")

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n > 3 {
		return 0, errBody
	}
	r.n++
	return copy(p, bytes.Repeat([]byte("x"), 1<<16)), nil
}

func TestPutAbortedLeavesNothing(t *testing.T) {
	srv, s := open(t, nil)
	if _, err := s.Put(context.Background(), "png", &failingReader{}); !errors.Is(err, errBody) {
		t.Fatalf("Put of a failing body: got %v, want it wrapped", err)
	}
	entries, _ := os.ReadDir(filepath.Join(srv.Root, srv.Bucket, "artifacts"))
	for _, e := range entries {
		t.Errorf("left in the bucket by an aborted Put: %s", e.Name())
	}
}

func TestBucketDown(t *testing.T) {
	srv, s := open(t, nil)
	srv.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Check(ctx); err == nil {
		t.Error("Check with the S3 server stopped: got nil error")
	}
}

// TestThroughAPI serves a stored artifact through /artifacts/, streamed
// and with a Range, then pre-signed (a redirect to the bucket).
func TestThroughAPI(t *testing.T) {
	_, s := open(t, nil)
	name, err := s.Put(context.Background(), "png", bytes.NewReader(png))
	if err != nil {
		t.Fatal(err)
	}
	streamed := apitest.New(t, apitest.Options{HTTP: httpapi.Options{Artifacts: s}})
	resp := streamed.Do(t, "GET", "/artifacts/"+name, nil, nil)
	if resp.Status != 200 || !bytes.Equal(resp.Body, png) || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("streamed: %d %s, %d bytes; want 200 image/png and the %d bytes", resp.Status, resp.Header.Get("Content-Type"), len(resp.Body), len(png))
	}
	ranged := streamed.Do(t, "GET", "/artifacts/"+name, nil, map[string]string{"Range": "bytes=8-13"})
	if ranged.Status != 206 || string(ranged.Body) != "pixels" {
		t.Errorf("Range bytes=8-13: %d %q, want 206 \"pixels\"", ranged.Status, ranged.Body)
	}
	if resp := streamed.Do(t, "GET", "/artifacts/"+strings.Repeat("a", 32)+".png", nil, nil); resp.Status != 404 {
		t.Errorf("unknown artifact: %d, want 404", resp.Status)
	}
	health := streamed.Do(t, "GET", "/health/service", nil, map[string]string{"x-api-key": apitest.Key})
	if !bytes.Contains(health.Body, []byte(`"name":"artifactStore","status":"healthy","message":"writable: s3 bucket sitediag-artifacts"`)) {
		t.Errorf("/health/service does not report the S3 store healthy: %s", health.Body)
	}

	presigned := apitest.New(t, apitest.Options{HTTP: httpapi.Options{Artifacts: s, PresignArtifacts: true}})
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r, err := noFollow.Get(presigned.Server.URL + "/artifacts/" + name)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	loc := r.Header.Get("Location")
	if r.StatusCode != http.StatusFound || !strings.Contains(loc, "X-Amz-Signature=") {
		t.Fatalf("pre-signed: %d Location %q, want 302 to a signed bucket URL", r.StatusCode, loc)
	}
	r, err = http.Get(loc)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != 200 || !bytes.Equal(body, png) {
		t.Errorf("GET the redirect's target: %d, %d bytes; want 200 and the artifact", r.StatusCode, len(body))
	}
}
