package sitediag_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sitediag/sitediag"
)

// A PDF whose job ends before the caller has read it reports the
// documented error on Body, not the pipe's own.
func TestURL2PDFBodyAfterCancel(t *testing.T) {
	needChromium(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!doctype html><title>t</title><p>hello</p>")
	}))
	defer site.Close()
	c := loopbackClient(t)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := c.URL2PDF(ctx, site.URL, sitediag.URL2PDFOptions{})
	if err != nil {
		t.Fatalf("URL2PDF: %v", err)
	}
	defer res.Body.Close()
	cancel()
	_, err = io.ReadAll(res.Body)
	var e *sitediag.Error
	if !errors.As(err, &e) || e.Code != sitediag.CodePDFConversionFailed {
		t.Errorf("reading Body after cancel: got %v, want an *Error with %s", err, sitediag.CodePDFConversionFailed)
	}
}
