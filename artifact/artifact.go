// Package artifact says what an artifact store is: where the API keeps
// the files an operation generates (screenshots, PDFs, reports) for a
// while and hands them back by name. It holds the Store interface, the
// name rule, the default time to live and the not-found error, and
// nothing else, so a store (package blobstore, or an embedder's own)
// depends on no server.
//
// artifacttest is the conformance suite every Store passes.
package artifact

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"time"
)

// DefaultTTL is how long a store keeps an artifact when no time to live
// is given.
const DefaultTTL = 24 * time.Hour

// ErrNotFound is returned by Store.Open for a name the store never
// handed out, one that is gone, or one older than its time to live.
var ErrNotFound = errors.New("artifact: not found")

// Store keeps generated files for a while and hands them back by name.
// Names are NewName's; a store refuses any other. Implementations must
// be safe for concurrent use.
type Store interface {
	// Put stores r under a new name with the extension ext ("png") and
	// returns the name. An error r's reads return comes back wrapped.
	Put(ctx context.Context, ext string, r io.Reader) (name string, err error)
	// Open returns the artifact and when it was stored, or ErrNotFound.
	Open(ctx context.Context, name string) (io.ReadSeekCloser, time.Time, error)
	// Check reports whether the store can take a new artifact now.
	Check(ctx context.Context) error
}

// name is the only shape of name a store hands out or opens.
var name = regexp.MustCompile(`^[0-9a-f]{32}\.[a-z0-9]{1,8}$`)

// NewName returns a new artifact name with the extension ext: a 128-bit
// random id in hex, a dot, and ext (1 to 8 lower-case letters or
// digits). The id is the capability to fetch it, so it is never reused.
func NewName(ext string) (string, error) {
	var id [16]byte
	rand.Read(id[:])
	n := hex.EncodeToString(id[:]) + "." + ext
	if !ValidName(n) {
		return "", fmt.Errorf("artifact: bad extension %q", ext)
	}
	return n, nil
}

// ValidName reports whether n has the shape NewName gives.
func ValidName(n string) bool { return name.MatchString(n) }
