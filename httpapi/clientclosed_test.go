package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitediag/sitediag/httpapi"
	"github.com/sitediag/sitediag/internal/apitest"
)

// syncBuffer is a bytes.Buffer safe for a logger and a test at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A client that hangs up while its page is being rendered is logged and
// counted as the client's cancellation (499), not as the operation's
// failure (#30: a 500 SCREENSHOT_FAILED, logged as "operation failed").
func TestClientCancellationIs499(t *testing.T) {
	needChromium(t)
	logs := &syncBuffer{}
	api := apitest.New(t, apitest.Options{HTTP: httpapi.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))}})
	requested := make(chan struct{}, 1)
	done := make(chan struct{})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/hang" {
			io.WriteString(w, "<!doctype html><title>ok</title>")
			return
		}
		select {
		case requested <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(site.Close)
	t.Cleanup(func() { close(done) })
	// The browser's start is not what is measured: start it first.
	api.Post(t, "/screenshot", map[string]any{"url": site.URL + "/"}).WantSuccess(t)

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, api.Server.URL+"/screenshot",
		strings.NewReader(`{"url":"`+site.URL+`/hang"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", apitest.Key)
	failed := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		failed <- err
	}()
	<-requested // the page is being loaded
	cancel()
	if err := <-failed; err == nil {
		t.Fatal("the request succeeded after its client hung up")
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(api.Handler.Metrics())
	series := func() map[string]float64 {
		out := map[string]float64{}
		families, _ := reg.Gather()
		for _, f := range families {
			if f.GetName() != "sitediag_requests_total" {
				continue
			}
			for _, m := range f.GetMetric() {
				labels := map[string]string{}
				for _, l := range m.GetLabel() {
					labels[l.GetName()] = l.GetValue()
				}
				if labels["operation"] == "/screenshot" && labels["status"] != "200" {
					out[labels["status"]+" "+labels["code"]] += m.GetCounter().GetValue()
				}
			}
		}
		return out
	}
	// The handler ends once the job has seen the cancellation.
	deadline := time.Now().Add(90 * time.Second)
	for len(series()) == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if got := series(); len(got) != 1 || got["499 CLIENT_CLOSED_REQUEST"] != 1 {
		t.Errorf("/screenshot's requests other than 200: %v, want one 499 CLIENT_CLOSED_REQUEST", got)
	}
	log := logs.String()
	if !strings.Contains(log, "status=499") || !strings.Contains(log, "client closed the request") || strings.Contains(log, "operation failed") {
		t.Errorf("log does not tell a client's hang-up from a failure:\n%s", log)
	}
}
