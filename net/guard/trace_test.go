package guard

import (
	"context"
	"errors"
	"net/netip"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Each address a dial tries is a connect span under the caller's span; a
// refused one fails with the class of the address, and is never dialled.
func TestDialSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	ctx, parent := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)).Tracer("test").Start(context.Background(), "op")
	g, dialled := recordingGuard(&fakeResolver{}, Policy{})
	addrs := []netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("93.184.216.34")}
	if _, err := g.DialAddrs(ctx, "tcp", addrs, 443); !errors.Is(err, errNoDial) {
		t.Fatalf("err = %v, want the recorded dial's error", err)
	}
	parent.End()
	if len(*dialled) != 1 {
		t.Fatalf("dialled %v, want only the public address", *dialled)
	}

	want := []struct {
		name  string
		attrs map[attribute.Key]string
	}{
		{"connect", map[attribute.Key]string{"network.peer.address": "10.0.0.1", "network.transport": "tcp", "sitediag.refusal.class": "private"}},
		{"connect", map[attribute.Key]string{"network.peer.address": "93.184.216.34", "network.peer.port": "443"}},
		{"op", nil},
	}
	spans := rec.Ended()
	if len(spans) != len(want) {
		t.Fatalf("got %d spans, want %d", len(spans), len(want))
	}
	for i, w := range want[:2] {
		s := spans[i]
		if s.Name() != w.name || s.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("span %d: got %s under %s, want %s under op", i, s.Name(), s.Parent().SpanID(), w.name)
		}
		got := map[attribute.Key]string{}
		for _, kv := range s.Attributes() {
			got[kv.Key] = kv.Value.String()
		}
		for k, v := range w.attrs {
			if got[k] != v {
				t.Errorf("span %d (%s): %s = %q, want %q", i, w.name, k, got[k], v)
			}
		}
		if s.Status().Code != codes.Error {
			t.Errorf("span %d: got status %+v, want Error (refused, or the recorded dial's error)", i, s.Status())
		}
	}
}
