package sitediag

import (
	"errors"

	"github.com/sitediag/sitediag/internal/apitag"
)

// resolve checks *opts (opts points to an options struct) against the
// bounds and enums of their api tags and fills in the defaults the tags
// give, so that *opts are the settings the operation runs with, which
// its result echoes; then, when opts is a checker, what the tags cannot
// say. A member out of bounds is CodeInvalidParameters naming it. The
// tags of each options type are read once per client.
func (c *Client) resolve(opts any) error {
	var e *apitag.Error
	if err := c.tags.Resolve(opts); errors.As(err, &e) {
		return InvalidParameter(e.Field, e.Reason)
	} else if err != nil {
		return err
	}
	if ch, ok := opts.(checker); ok {
		return ch.check()
	}
	return nil
}

// checker is implemented by the options whose rules their api tags
// cannot say; check runs once the tags' are met and defaults filled in.
type checker interface {
	check() error
}
