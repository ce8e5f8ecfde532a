package blobstore_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"gocloud.dev/blob/fileblob"

	"github.com/sitediag/sitediag/blobstore"
)

// A Store works on any gocloud.dev bucket; here a directory, so that the
// example runs anywhere. A server opens an S3 bucket with Open and
// passes the store as httpapi.Options.Artifacts.
func Example() {
	dir, err := os.MkdirTemp("", "blobstore-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bucket, err := fileblob.OpenBucket(dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer bucket.Close()
	store := blobstore.New(bucket, blobstore.Options{SweepInterval: -1})
	defer store.Close()

	ctx := context.Background()
	name, err := store.Put(ctx, "txt", strings.NewReader("a report"))
	if err != nil {
		log.Fatal(err)
	}
	r, _, err := store.Open(ctx, name)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	body, _ := io.ReadAll(r)
	fmt.Println(strings.HasSuffix(name, ".txt"), string(body))
	// Output: true a report
}
