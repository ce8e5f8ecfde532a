package sitediag

import "context"

// runOp is the course every operation runs: it starts the operation's
// span (named name, with rawTarget and opts as they were asked), resolves
// opts, opens the target with open, bounds ctx by the client's timeout,
// runs run on what open returned and maps run's error with mapErr. An
// error of resolve or open is returned as it is.
func runOp[O, T, R any](ctx context.Context, c *Client, name, rawTarget string, opts *O,
	open func() (T, error), run func(ctx context.Context, t T) (R, error), mapErr func(error) error) (_ R, err error) {
	ctx, end := c.startOp(ctx, name, rawTarget, *opts)
	defer end(&err)
	var zero R
	if err := c.resolve(opts); err != nil {
		return zero, err
	}
	t, err := open()
	if err != nil {
		return zero, err
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	res, err := run(ctx, t)
	if err != nil {
		return zero, mapErr(err)
	}
	return res, nil
}
