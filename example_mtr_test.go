package sitediag_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/sitediag/sitediag"
)

// Trace a path, and tell a refused target from other failures: the
// zero Config refuses private and loopback addresses, so nothing is sent
// to 10.0.0.1. On an allowed target, res.Hops lists each hop with its
// host, loss and round trips.
func ExampleClient_MTR() {
	c := newExampleClient(sitediag.Config{})
	defer c.Close()
	res, err := c.MTR(context.Background(), "10.0.0.1", sitediag.MTROptions{Count: 3, NoLookup: sitediag.On})
	var e *sitediag.Error
	switch {
	case errors.Is(err, sitediag.ErrTargetNotAllowed):
		fmt.Println("refused:", sitediag.CodeOf(err))
	case errors.As(err, &e):
		fmt.Println("failed:", e.Code, e.Details)
	default:
		for _, h := range res.Hops {
			fmt.Println(h.Hop, h.Host, h.Loss)
		}
	}
	// Output: refused: TARGET_NOT_ALLOWED
}
