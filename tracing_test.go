package sitediag_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/internal/dnstest"
	"github.com/sitediag/sitediag/internal/porttest"
)

// tracedClient returns a client whose spans rec records, resolving with
// a local DNS server that knows site.test (127.0.0.1) and not nowhere.test;
// allow are its AllowNetworks.
func tracedClient(t *testing.T, allow []netip.Prefix) (*sitediag.Client, *tracetest.SpanRecorder) {
	t.Helper()
	dns := dnstest.Start(t)
	dns.Add(t, "site.test. 60 IN A 127.0.0.1")
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	return newClient(t, sitediag.Config{DNSServers: []string{dns.Addr}, AllowNetworks: allow, TracerProvider: tp}), rec
}

// only returns the one ended span named name.
func only(t *testing.T, rec *tracetest.SpanRecorder, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("got %d ended %q spans, want 1 (ended: %s)", len(found), name, spanNames(rec.Ended()))
	}
	return found[0]
}

func spanNames(spans []sdktrace.ReadOnlySpan) string {
	names := make([]string, len(spans))
	for i, s := range spans {
		names[i] = s.Name()
	}
	return strings.Join(names, ", ")
}

// attr returns the value of span's attribute key, as its Emit form.
func attr(span sdktrace.ReadOnlySpan, key attribute.Key) string {
	for _, kv := range span.Attributes() {
		if kv.Key == key {
			return kv.Value.String()
		}
	}
	return ""
}

// wantChild checks that child's parent is parent.
func wantChild(t *testing.T, child, parent sdktrace.ReadOnlySpan) {
	t.Helper()
	if got, want := child.Parent().SpanID(), parent.SpanContext().SpanID(); got != want {
		t.Errorf("%s: got parent %s, want %s (%s)", child.Name(), got, want, parent.Name())
	}
	if got, want := child.SpanContext().TraceID(), parent.SpanContext().TraceID(); got != want {
		t.Errorf("%s: got trace %s, want %s", child.Name(), got, want)
	}
}

func wantAttr(t *testing.T, span sdktrace.ReadOnlySpan, key attribute.Key, want string) {
	t.Helper()
	if got := attr(span, key); got != want {
		t.Errorf("%s: %s = %q, want %q", span.Name(), key, got, want)
	}
}

// An HTTP operation is one span with the name resolution, the connection
// and the TLS handshake under it, whether the transport makes the
// handshake (Up) or the guard's dialer does (HTTPHeader reads raw
// HTTP/1.1).
func TestTracingHTTPOperation(t *testing.T) {
	site := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	site.EnableHTTP2 = true
	site.StartTLS()
	defer site.Close()
	target := "https://site.test:" + port(site.URL) + "/"
	off := sitediag.RequestOptions{FollowRedirect: sitediag.Off}
	for _, tc := range []struct {
		op   string
		run  func(*sitediag.Client) error
		alpn string // negotiated
	}{
		{"Up", func(c *sitediag.Client) error {
			_, err := c.Up(context.Background(), target, sitediag.UpOptions{RequestOptions: off})
			return err
		}, "h2"},
		{"HTTPHeader", func(c *sitediag.Client) error {
			_, err := c.HTTPHeader(context.Background(), target, sitediag.HTTPHeaderOptions{RequestOptions: off})
			return err
		}, ""}, // it offers http/1.1 only; the server, h2 only
	} {
		t.Run(tc.op, func(t *testing.T) {
			c, rec := tracedClient(t, loopback)
			if err := tc.run(c); err != nil {
				t.Fatal(err)
			}
			op := only(t, rec, "sitediag."+tc.op)
			if op.Parent().IsValid() {
				t.Errorf("%s: got parent %s, want a root span", op.Name(), op.Parent().SpanID())
			}
			wantAttr(t, op, "sitediag.target", target)
			wantAttr(t, op, "sitediag.option.followRedirect", "false")
			if op.Status().Code == codes.Error {
				t.Errorf("%s: got status %+v, want no error", op.Name(), op.Status())
			}

			resolve := only(t, rec, "resolve")
			wantChild(t, resolve, op)
			wantAttr(t, resolve, "dns.question.name", "site.test")
			wantAttr(t, resolve, "sitediag.resolve.addresses", `["127.0.0.1"]`)

			connect := only(t, rec, "connect")
			wantChild(t, connect, op)
			wantAttr(t, connect, "network.transport", "tcp")
			wantAttr(t, connect, "network.peer.address", "127.0.0.1")
			wantAttr(t, connect, "network.peer.port", port(site.URL))

			handshake := only(t, rec, "tls")
			wantChild(t, handshake, op)
			wantAttr(t, handshake, "tls.server.name", "site.test")
			wantAttr(t, handshake, "tls.protocol.version", "TLS 1.3")
			wantAttr(t, handshake, "tls.next_protocol", tc.alpn)

			if got := len(rec.Started()); got != len(rec.Ended()) {
				t.Errorf("got %d spans started, %d ended, want all ended", got, len(rec.Ended()))
			}
		})
	}
}

// A failed operation's span has the Error status and the error's code;
// the child span where it failed says why.
func TestTracingErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		allow  []netip.Prefix
		target string
		code   sitediag.Code
		// child is the child span that fails, with its attributes.
		child string
		attrs map[attribute.Key]string
	}{
		{
			name: "refused", target: "https://site.test/", code: sitediag.CodeTargetNotAllowed,
			child: "resolve", attrs: map[attribute.Key]string{"sitediag.refusal.class": "loopback"},
		},
		{
			name: "refused IP", target: "http://127.0.0.1:1/", code: sitediag.CodeTargetNotAllowed,
			child: "resolve", attrs: map[attribute.Key]string{"sitediag.refusal.class": "loopback"},
		},
		{
			name: "not resolved", allow: loopback, target: "https://nowhere.test/", code: sitediag.CodeUnableToConnect,
			child: "resolve", attrs: map[attribute.Key]string{"sitediag.resolve.answers": "0"},
		},
		{
			name: "connection refused", allow: loopback, target: fmt.Sprintf("http://site.test:%d/", porttest.Closed(t)), code: sitediag.CodeUnableToConnect,
			child: "connect", attrs: map[attribute.Key]string{"network.peer.address": "127.0.0.1"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, rec := tracedClient(t, tc.allow)
			_, err := c.HTTPHeader(context.Background(), tc.target, sitediag.HTTPHeaderOptions{})
			wantCode(t, err, tc.code)
			op := only(t, rec, "sitediag.HTTPHeader")
			if op.Status().Code != codes.Error {
				t.Errorf("sitediag.HTTPHeader: got status %+v, want Error", op.Status())
			}
			wantAttr(t, op, "sitediag.error.code", string(tc.code))
			if len(op.Events()) == 0 || op.Events()[0].Name != "exception" {
				t.Errorf("sitediag.HTTPHeader: got events %+v, want the error recorded", op.Events())
			}
			child := only(t, rec, tc.child)
			wantChild(t, child, op)
			if child.Status().Code != codes.Error {
				t.Errorf("%s: got status %+v, want Error", tc.child, child.Status())
			}
			for k, v := range tc.attrs {
				wantAttr(t, child, k, v)
			}
		})
	}
}

// Every operation method of Client makes its span, named after it, even
// when it fails before any I/O.
func TestTracingEveryOperation(t *testing.T) {
	c, rec := tracedClient(t, nil)
	ctxType := reflect.TypeFor[context.Context]()
	typ := reflect.TypeOf(c)
	ops := 0
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		ft := m.Func.Type()
		if ft.NumIn() != 4 || ft.In(1) != ctxType || ft.In(2).Kind() != reflect.String || ft.NumOut() != 2 {
			continue
		}
		ops++
		out := m.Func.Call([]reflect.Value{reflect.ValueOf(c), reflect.ValueOf(context.Background()),
			reflect.ValueOf("ftp://bad target"), reflect.Zero(ft.In(3))})
		err, _ := out[1].Interface().(error)
		wantCode(t, err, sitediag.CodeInvalidURL)
		span := only(t, rec, "sitediag."+m.Name)
		wantAttr(t, span, "sitediag.target", "ftp://bad target")
		wantAttr(t, span, "sitediag.error.code", string(sitediag.CodeInvalidURL))
	}
	if ops < 20 {
		t.Errorf("got %d operation methods, want at least 20", ops)
	}
}

// With no TracerProvider nothing is traced, not even under a span the
// caller started with its own provider.
func TestTracingOff(t *testing.T) {
	dns := dnstest.Start(t)
	dns.Add(t, "site.test. 60 IN A 127.0.0.1")
	c := newClient(t, sitediag.Config{DNSServers: []string{dns.Addr}, AllowNetworks: loopback})
	site := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer site.Close()
	rec := tracetest.NewSpanRecorder()
	ctx, span := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)).Tracer("caller").Start(context.Background(), "caller")
	res, err := c.Up(ctx, "https://site.test:"+port(site.URL), sitediag.UpOptions{})
	span.End()
	if err != nil || !res.Reachable {
		t.Fatalf("Up: got %+v, %v, want reachable", res, err)
	}
	if got := spanNames(rec.Ended()); got != "caller" {
		t.Errorf("got spans %q, want only the caller's", got)
	}
}

// A browser operation's job is a span under the operation's, with the
// page's name resolution under the job.
func TestTracingBrowserJob(t *testing.T) {
	needChromium(t)
	c, rec := tracedClient(t, loopback)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!doctype html><title>t</title><p>hello</p>"))
	}))
	defer site.Close()

	if _, err := c.Screenshot(context.Background(), "http://site.test:"+port(site.URL)+"/", sitediag.ScreenshotOptions{}); err != nil {
		t.Fatalf("Screenshot: %v", err)
	}
	op := only(t, rec, "sitediag.Screenshot")
	job := only(t, rec, "browser job")
	wantChild(t, job, op)
	wantAttr(t, job, "sitediag.browser.device", "desktop")
	if attr(job, "sitediag.browser.slot_wait_ms") == "" {
		t.Errorf("browser job: got attributes %v, want sitediag.browser.slot_wait_ms", job.Attributes())
	}
	var resolved bool
	for _, s := range rec.Ended() {
		if s.Name() == "resolve" && attr(s, "dns.question.name") == "site.test" && s.Parent().SpanID() == job.SpanContext().SpanID() {
			resolved = true
		}
	}
	if !resolved {
		t.Errorf("got spans %s, want the page's resolve under browser job", spanNames(rec.Ended()))
	}
	// The job's phases, in order: the first job opens its own page; the
	// spare it prepares for the next job adds nothing to its span.
	var events []string
	for _, e := range job.Events() {
		events = append(events, e.Name)
	}
	want := []string{"slot acquired", "browser ready", "proxy ready", "context ready", "page ready",
		"navigated", "loaded", "settled", "scripts checked", "capture ready", "captured"}
	if !slices.Equal(events, want) {
		t.Errorf("browser job events %q, want %q", events, want)
	}
}

// The host and browser operations open their span through runHost and
// runPage: each is one span named after the operation, with the options
// set and the code of the error it returns, before any packet is sent
// or any browser is involved.
func TestTracingHostAndPageOperations(t *testing.T) {
	c, rec := tracedClient(t, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		op     string
		err    error
		option attribute.Key
		code   sitediag.Code
	}{
		{"Ping", errOf(c.Ping(ctx, "169.254.169.254", sitediag.PingOptions{Count: 2})),
			"sitediag.option.count", sitediag.CodeTargetNotAllowed},
		{"MTR", errOf(c.MTR(ctx, "10.0.0.1", sitediag.MTROptions{MaxHops: 3})),
			"sitediag.option.maxHops", sitediag.CodeTargetNotAllowed},
		{"OpenPort", errOf(c.OpenPort(ctx, "127.0.0.1", sitediag.OpenPortOptions{TopPorts: 50, PortRanges: "80"})),
			"sitediag.option.portRanges", sitediag.CodeInvalidParameters},
		{"Screenshot", errOf(c.Screenshot(ctx, "https://site.test/", sitediag.ScreenshotOptions{ShotOptions: browser.ShotOptions{Type: "gif"}})),
			"sitediag.option.type", sitediag.CodeInvalidParameters},
		{"MixedContent", errOf(c.MixedContent(ctx, "ftp://site.test/", sitediag.MixedContentOptions{FollowRedirect: sitediag.On})),
			"sitediag.option.followRedirect", sitediag.CodeInvalidURL},
		{"MetaScrape", errOf(c.MetaScrape(ctx, "https://site.test/", sitediag.MetaScrapeOptions{Format: "yaml"})),
			"sitediag.option.format", sitediag.CodeInvalidParameters},
		{"WebScrape", errOf(c.WebScrape(ctx, "https://site.test/", sitediag.WebScrapeOptions{ExtractionMode: "cssSchema"})),
			"sitediag.option.extractionMode", sitediag.CodeInvalidParameters},
	} {
		t.Run(tc.op, func(t *testing.T) {
			wantCode(t, tc.err, tc.code)
			span := only(t, rec, "sitediag."+tc.op)
			if span.Status().Code != codes.Error {
				t.Errorf("%s: got status %+v, want Error", span.Name(), span.Status())
			}
			wantAttr(t, span, "sitediag.error.code", string(tc.code))
			if attr(span, tc.option) == "" {
				t.Errorf("%s: got attributes %v, want %s", span.Name(), span.Attributes(), tc.option)
			}
		})
	}
}

// errOf is the error of an operation's call, its result dropped.
func errOf[R any](_ R, err error) error { return err }
