package blobstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitediag/sitediag/artifact"
	"github.com/sitediag/sitediag/artifact/artifacttest"
	"github.com/sitediag/sitediag/blobstore"
	"github.com/sitediag/sitediag/httpapi"
	"github.com/sitediag/sitediag/internal/apitest"
	"github.com/sitediag/sitediag/internal/s3test"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/s3blob" // s3:// buckets
)

// The store is an artifact.Store, what httpapi.Options.Artifacts takes.
var _ artifact.Store = (*blobstore.Store)(nil)

var png = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte("pixels"), 50_000)...)

// open starts versitygw and opens a store on its bucket by URL.
func open(t *testing.T) (*s3test.Server, *blobstore.Store) {
	t.Helper()
	srv := s3test.Start(t)
	srv.SetEnv(t)
	opts := blobstore.Options{TTL: time.Hour, SweepInterval: -1}
	s, err := blobstore.Open(context.Background(), srv.URL(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return srv, s
}

// stored lists every key of the bucket at rawURL.
func stored(t *testing.T, rawURL string) []string {
	t.Helper()
	ctx := context.Background()
	b, err := blob.OpenBucket(ctx, rawURL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var keys []string
	it := b.List(nil)
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return keys
		}
		if err != nil {
			t.Fatal(err)
		}
		if !obj.IsDir {
			keys = append(keys, obj.Key)
		}
	}
}

func TestConformanceDir(t *testing.T) {
	var dir string
	artifacttest.Run(t, artifacttest.Harness{
		New: func(t *testing.T, ttl time.Duration, now func() time.Time) artifact.Store {
			dir = filepath.Join(t.TempDir(), "artifacts")
			s, err := blobstore.OpenDir(dir, blobstore.Options{TTL: ttl, Now: now, SweepInterval: -1})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
		Stored: func(t *testing.T) []string { return stored(t, "file://"+dir) },
	})
}

func TestConformanceS3(t *testing.T) {
	var srv *s3test.Server
	artifacttest.Run(t, artifacttest.Harness{
		New: func(t *testing.T, ttl time.Duration, now func() time.Time) artifact.Store {
			srv = s3test.Start(t)
			srv.SetEnv(t)
			s, err := blobstore.Open(context.Background(), srv.URL(), blobstore.Options{TTL: ttl, Now: now, SweepInterval: -1})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
		Stored: func(t *testing.T) []string { return stored(t, srv.URL()) },
	})
}

func TestSignedURL(t *testing.T) {
	_, s := open(t)
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

func TestBucketDown(t *testing.T) {
	srv, s := open(t)
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
	_, s := open(t)
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
