package sitediag

import (
	"context"
	"time"

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
// target, with the options set in opts, and returns ctx with it; end
// records the error the operation returns through errp, with its code,
// and ends the span. Every operation opens with it:
//
//	ctx, end := c.startOp(ctx, "Up", rawURL, requestOptions(opts.RequestOptions))
//	defer end(&err)
func (c *Client) startOp(ctx context.Context, name, target string, opts spanOptions) (context.Context, func(errp *error)) {
	ctx, span := c.tracer.Start(ctx, "sitediag."+name, trace.WithAttributes(append(opts, keyTarget.String(target))...))
	return ctx, func(errp *error) {
		if *errp != nil {
			span.SetAttributes(keyErrorCode.String(string(CodeOf(*errp))))
		}
		tracing.End(span, *errp)
	}
}

// spanOptions are an operation's options as span attributes. Each adder
// leaves out an option at its zero value (the documented default).
type spanOptions []attribute.KeyValue

func (o spanOptions) str(name, v string) spanOptions {
	if v == "" {
		return o
	}
	return append(o, attribute.String(optionPrefix+name, v))
}

func (o spanOptions) strs(name string, v []string) spanOptions {
	if len(v) == 0 {
		return o
	}
	return append(o, attribute.StringSlice(optionPrefix+name, v))
}

func (o spanOptions) num(name string, v float64) spanOptions {
	if v == 0 {
		return o
	}
	return append(o, attribute.Float64(optionPrefix+name, v))
}

func (o spanOptions) flag(name string, v bool) spanOptions {
	if !v {
		return o
	}
	return append(o, attribute.Bool(optionPrefix+name, v))
}

func (o spanOptions) toggle(name string, t Toggle) spanOptions {
	if t == 0 {
		return o
	}
	return append(o, attribute.Bool(optionPrefix+name, t == On))
}

func (o spanOptions) seconds(name string, d time.Duration) spanOptions {
	return o.num(name, d.Seconds())
}

func (o spanOptions) count(name string, n int) spanOptions {
	if n == 0 {
		return o
	}
	return append(o, attribute.Int(optionPrefix+name, n))
}

// requestOptions are the options every HTTP-level operation shares.
func requestOptions(opts RequestOptions) spanOptions {
	return spanOptions{}.toggle("follow_redirect", opts.FollowRedirect).str("proxy_country", opts.ProxyCountry)
}

// pageOptions are the options every browser operation shares.
func pageOptions(opts PageOptions) spanOptions {
	return spanOptions{}.str("device", opts.Device).str("proxy_country", opts.ProxyCountry).
		toggle("block_ads", opts.BlockAds).toggle("hide_cookie", opts.HideCookieBanners).
		toggle("skip_captcha", opts.SkipCaptcha).num("timeout", opts.Timeout)
}

// stringsOf is v as plain strings.
func stringsOf[S ~string](v []S) []string {
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = string(s)
	}
	return out
}
