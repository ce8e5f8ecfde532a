package browser

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestFleet spreads jobs over two remote browsers and a URL where none
// answers: every job runs, both browsers take some, the dead one rests,
// and what the pages load still goes through the jobs' filtering
// proxies (a refused address is never reached).
func TestFleet(t *testing.T) {
	e := newEnv(t, Config{})
	procA, urlA := launchRemote(t, e)
	_, urlB := launchRemote(t, e)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()

	f, err := NewFleet(Config{Network: e.pool.cfg.Network, MaxJobs: 1}, []string{dead, urlA, urlB})
	if err != nil {
		t.Fatal(err)
	}
	if st := f.Status(t.Context()); !st.Ready || !strings.HasPrefix(st.Message, "2 of 3 browsers ready") {
		t.Errorf("status before any job: %+v, want ready, 2 of 3", st)
	}
	forbidden := listenForbidden(t)
	page := e.site.page("/fleet", fmt.Sprintf(`<!doctype html><title>fleet</title><body>hello
<img src="http://127.0.0.2:%d/x.png"><img src="http://evil.test:%d/y.png">`, forbidden.port, forbidden.port))
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			errs <- f.Do(ctx, JobOptions{}, func(ctx context.Context, j *Job) error {
				if _, err := j.Load(ctx, page, LoadOptions{}); err != nil {
					return err
				}
				if n := j.Stats().Refused; n < 2 {
					return fmt.Errorf("the job's proxy refused %d requests, want 2", n)
				}
				return nil
			})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("job on the fleet: %v", err)
		}
	}
	for i, name := range []string{"dead", "A", "B"} {
		p := f.pools[i]
		p.mu.Lock()
		started := 0
		if p.cur != nil {
			started = p.cur.started
		}
		p.mu.Unlock()
		if (i == 0) != (started == 0) {
			t.Errorf("browser %s ran %d jobs; want none on the dead one, some on each live one", name, started)
		}
	}
	if n := forbidden.conns.Load(); n != 0 {
		t.Errorf("the refused address got %d connections from the fleet's browsers, want 0", n)
	}
	if order := f.order(); order[len(order)-1] != 0 {
		t.Errorf("order %v: want the dead browser last while it rests", order)
	}

	// Streams go through the fleet too.
	r, err := f.Stream(ctx, JobOptions{}, func(ctx context.Context, j *Job, w io.Writer) error {
		_, err := w.Write([]byte("streamed"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()

	f.Close()
	select {
	case <-procA.Exited():
		t.Error("closing the fleet stopped a remote browser")
	case <-time.After(300 * time.Millisecond):
	}
}
