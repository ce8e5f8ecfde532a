// Package tracing is what sitediag's packages share to trace with
// OpenTelemetry: the instrumentation name, child spans that follow the
// operation's span in a context, and the TLS handshake span.
//
// There is no tracer here and no global one: an operation's span is
// started with the tracer of the Client's Config.TracerProvider, and
// every span below it (resolve, connect, tls, browser job) is started on
// the TracerProvider of the span found in the context. With no span in
// the context, or a non-recording one, nothing is recorded, so the
// mechanism packages trace only inside an operation and never start root
// spans of their own (such as for the requests of a browser's proxy).
package tracing

import (
	"context"
	"crypto/tls"
	"net/http/httptrace"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Name is the instrumentation scope of every sitediag span.
const Name = "github.com/sitediag/sitediag"

// Names of the child spans.
const (
	SpanResolve    = "resolve"
	SpanConnect    = "connect"
	SpanTLS        = "tls"
	SpanBrowserJob = "browser job"
)

// Attribute keys shared by more than one package.
const (
	// KeyRefusalClass is the guard.Class of an address the SSRF policy
	// refused.
	KeyRefusalClass = attribute.Key("sitediag.refusal.class")
)

// Start starts a span named name as a child of the span in ctx, on that
// span's TracerProvider, and returns ctx with it. With no recording span
// in ctx the span does nothing.
func Start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, noop.Span{}
	}
	return parent.TracerProvider().Tracer(Name).Start(ctx, name, trace.WithAttributes(attrs...))
}

// Event marks the moment name on the span in ctx, if it is recording:
// the end of one phase of a job and the start of the next.
func Event(ctx context.Context, name string) {
	trace.SpanFromContext(ctx).AddEvent(name)
}

// End records err on span, if any, as an event and the Error status,
// and ends it.
func End(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// Handshake runs conn's TLS handshake in a "tls" span.
func Handshake(ctx context.Context, conn *tls.Conn) error {
	_, span := Start(ctx, SpanTLS)
	err := conn.HandshakeContext(ctx)
	endTLS(span, conn.ConnectionState(), err)
	return err
}

// WithHTTPTrace returns ctx with an httptrace.ClientTrace, composed with
// any already there, that puts each TLS handshake an http.Transport
// makes for a request in ctx in a "tls" span. With no recording span in
// ctx it returns ctx.
func WithHTTPTrace(ctx context.Context) context.Context {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx
	}
	// A request's hooks run in turn, on the goroutine that dials for it.
	var span trace.Span
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		TLSHandshakeStart: func() { _, span = Start(ctx, SpanTLS) },
		TLSHandshakeDone: func(cs tls.ConnectionState, err error) {
			if span != nil {
				endTLS(span, cs, err)
			}
		},
	})
}

// endTLS records what a handshake negotiated and ends span.
func endTLS(span trace.Span, cs tls.ConnectionState, err error) {
	if cs.ServerName != "" {
		span.SetAttributes(attribute.String("tls.server.name", cs.ServerName))
	}
	if cs.HandshakeComplete {
		span.SetAttributes(
			attribute.String("tls.protocol.version", tls.VersionName(cs.Version)),
			attribute.String("tls.cipher", tls.CipherSuiteName(cs.CipherSuite)),
			attribute.Bool("tls.resumed", cs.DidResume),
		)
	}
	if cs.NegotiatedProtocol != "" {
		span.SetAttributes(attribute.String("tls.next_protocol", cs.NegotiatedProtocol))
	}
	End(span, err)
}
