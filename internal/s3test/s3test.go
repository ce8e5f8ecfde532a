// Package s3test starts a real S3 server for a test: versitygw
// (github.com/versity/versitygw) with its POSIX back end, on a free
// loopback port, with one bucket made.
//
// The binary is built once from the Go module proxy into the user's
// cache directory (scripts/setup.sh does the same), or taken from
// $SITEDIAG_VERSITYGW. When it cannot be had the test skips, and fails
// in CI (SITEDIAG_CI=1).
package s3test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/sitediag/sitediag/internal/porttest"
	"github.com/sitediag/sitediag/internal/testenv"
)

// Version is the versitygw release the tests run.
const Version = "v1.8.0"

// Package is what is built.
const Package = "github.com/versity/versitygw/cmd/versitygw"

// The root credentials of every server started here.
const (
	AccessKey = "sitediagtest"
	SecretKey = "sitediagtest-secret"
	Region    = "us-east-1"
)

// Server is a running versitygw. Start gives one; it is stopped when the
// test ends.
type Server struct {
	// Endpoint is http://127.0.0.1:port.
	Endpoint string
	// Bucket is the bucket made for the test.
	Bucket string
	// Root is the POSIX directory behind the server: Root/Bucket holds
	// the objects.
	Root string
	cmd  *exec.Cmd
	once sync.Once
}

// URL is the bucket's gocloud URL, as SITEDIAG_ARTIFACTS_URL takes it.
// The credentials are in Env.
func (s *Server) URL() string {
	return "s3://" + s.Bucket + "?endpoint=" + s.Endpoint + "&region=" + Region + "&use_path_style=true&disable_https=true"
}

// Env is the environment an S3 client needs for the server, as
// KEY=value pairs.
func (s *Server) Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + AccessKey, "AWS_SECRET_ACCESS_KEY=" + SecretKey, "AWS_REGION=" + Region}
}

// SetEnv sets Env in this process for the rest of the test.
func (s *Server) SetEnv(t testing.TB) {
	t.Setenv("AWS_ACCESS_KEY_ID", AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", SecretKey)
	t.Setenv("AWS_REGION", Region)
}

// Binary is where the built versitygw is cached:
// <user cache dir>/sitediag/versitygw-<Version>, or $SITEDIAG_VERSITYGW.
func Binary() (string, error) {
	if p := os.Getenv("SITEDIAG_VERSITYGW"); p != "" {
		return p, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "sitediag", "versitygw-"+Version), nil
}

// build makes the binary at path with `go install` under a lock, so
// packages tested at once build it once.
func build(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(path); err == nil {
		return nil // built while this waited
	}
	gobin, err := os.MkdirTemp(filepath.Dir(path), ".build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(gobin)
	cmd := exec.Command("go", "install", Package+"@"+Version)
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS=-buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go install %s@%s: %v\n%s", Package, Version, err, out)
	}
	return os.Rename(filepath.Join(gobin, "versitygw"), path)
}

// Start runs versitygw on a free 127.0.0.1 port over a new directory and
// makes one bucket, building the binary first when it is not cached.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := Binary()
	if err == nil {
		if _, statErr := os.Stat(bin); statErr != nil {
			err = build(bin)
		}
	}
	testenv.Need(t, err == nil, fmt.Sprintf("versitygw %s cannot be built: %v", Version, err))
	return porttest.Retry(t, func() (*Server, error) { return start(t, bin) }, (*Server).Stop)
}

func start(t testing.TB, bin string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	root := t.TempDir()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cmd := exec.Command(bin, "--access", AccessKey, "--secret", SecretKey, "--region", Region,
		"--port", addr, "posix", root)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	log, err := os.Create(filepath.Join(t.TempDir(), "versitygw.log"))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{Endpoint: "http://" + addr, Bucket: "sitediag-artifacts", Root: root, cmd: cmd}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		err = s.makeBucket(ctx)
		if err == nil {
			return s, nil
		}
		if ctx.Err() != nil {
			s.Stop()
			b, _ := os.ReadFile(log.Name())
			return nil, fmt.Errorf("versitygw on %s made no bucket in 20 s: %v\n%s", addr, err, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Client returns an S3 client with the root credentials.
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:       Region,
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
		HTTPClient:   &http.Client{Timeout: 5 * time.Second},
	})
}

func (s *Server) makeBucket(ctx context.Context) error {
	_, err := s.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(s.Bucket)})
	return err
}

// Stop ends the server (SIGKILL) and waits for it. It may be called
// more than once.
func (s *Server) Stop() {
	s.once.Do(func() {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	})
}
