package sitediag

import (
	"context"
	"reflect"

	"github.com/sitediag/sitediag/internal/apitag"
	"github.com/sitediag/sitediag/internal/tracing"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Attribute keys of an operation's span.
const (
	// keyTarget is the target as the caller gave it.
	keyTarget = attribute.Key("sitediag.target")
	// keyErrorCode is the Code of the error the operation returned.
	keyErrorCode = attribute.Key("sitediag.error.code")
	// optionPrefix starts the key of each option set, such as
	// sitediag.option.follow_redirect.
	optionPrefix = "sitediag.option."
)

// startOp starts the span of the operation name ("sitediag.<name>") on
// target, with the options set in opts (an options struct, read only
// when the span records), and returns ctx with it; end records the error
// the operation returns through errp, with its code, and ends the span.
// Every operation opens with it (the host-level, HTTP-level and browser
// operations through runOp):
//
//	ctx, end := c.startOp(ctx, "Up", rawURL, opts)
//	defer end(&err)
func (c *Client) startOp(ctx context.Context, name, target string, opts any) (context.Context, func(errp *error)) {
	if c.cfg.TracerProvider == nil && !trace.SpanFromContext(ctx).IsRecording() {
		// No tracing, and no caller's span to hide from what the
		// operation starts: there is nothing to do.
		return ctx, endNothing
	}
	ctx, span := c.tracer.Start(ctx, "sitediag."+name, trace.WithAttributes(keyTarget.String(target)))
	if span.IsRecording() {
		span.SetAttributes(spanOptions(&c.tags, opts)...)
	}
	return ctx, func(errp *error) {
		if *errp != nil {
			span.SetAttributes(keyErrorCode.String(string(CodeOf(*errp))))
		}
		tracing.End(span, *errp)
	}
}

// endNothing is startOp's end when it started no span.
func endNothing(*error) {}

// spanOptions are an operation's options as span attributes, one per
// member set (a zero member is the documented default and left out),
// keyed by its API name: sitediag.option.followRedirect; tags are the
// client's.
func spanOptions(tags *apitag.Cache, opts any) []attribute.KeyValue {
	if opts == nil {
		return nil
	}
	v := reflect.ValueOf(opts)
	var out []attribute.KeyValue
	for _, f := range tags.Fields(v.Type()) {
		fv := v.FieldByIndex(f.Index)
		if fv.IsZero() {
			continue
		}
		key := optionPrefix + f.Name
		switch x := fv.Interface().(type) {
		case Toggle:
			out = append(out, attribute.Bool(key, x.Bool()))
		default:
			switch fv.Kind() {
			case reflect.String:
				out = append(out, attribute.String(key, fv.String()))
			case reflect.Bool:
				out = append(out, attribute.Bool(key, fv.Bool()))
			case reflect.Int, reflect.Int64:
				out = append(out, attribute.Int64(key, fv.Int()))
			case reflect.Float64:
				out = append(out, attribute.Float64(key, fv.Float()))
			case reflect.Slice:
				if fv.Type().Elem().Kind() == reflect.String {
					ss := make([]string, fv.Len())
					for i := range ss {
						ss[i] = fv.Index(i).String()
					}
					out = append(out, attribute.StringSlice(key, ss))
				}
			}
		}
	}
	return out
}
