package sitediag_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"testing"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/internal/testenv"
)

// A PDF whose job ends before the caller has read it reports the
// documented error on Body, not the pipe's own.
func TestURL2PDFBodyAfterCancel(t *testing.T) {
	_, err := browser.Find(os.Getenv("SITEDIAG_CHROME_PATH"))
	testenv.Need(t, err == nil, "needs Chromium (apt-get install chromium)")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!doctype html><title>t</title><p>hello</p>")
	}))
	defer site.Close()
	c, err := sitediag.New(sitediag.Config{AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

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
