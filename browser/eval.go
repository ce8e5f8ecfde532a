package browser

import (
	"context"

	"github.com/go-rod/rod/lib/proto"
)

// Eval runs a JavaScript function (no arguments) in the page and returns
// its result as JSON.
func (j *Job) Eval(ctx context.Context, fn string) ([]byte, error) {
	res, err := j.page.Context(ctx).Eval(fn)
	if err != nil {
		return nil, j.fail(ctx, "running a script in the page", err)
	}
	return []byte(res.Value.JSON("", "")), nil
}

// SetColorScheme emulates prefers-color-scheme (light or dark) from now
// on; styles that depend on it are recomputed at once.
func (j *Job) SetColorScheme(ctx context.Context, scheme Theme) error {
	err := proto.EmulationSetEmulatedMedia{
		Features: []*proto.EmulationMediaFeature{{Name: "prefers-color-scheme", Value: string(scheme)}},
	}.Call(j.page.Context(ctx))
	if err != nil {
		return j.fail(ctx, "emulating the colour scheme", err)
	}
	return nil
}
