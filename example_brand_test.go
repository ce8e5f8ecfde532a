package sitediag_test

import (
	"context"
	"fmt"
	"time"

	"github.com/sitediag/sitediag"
)

// Brand needs Chromium; the URL and options are checked before any
// browser is involved, so this runs without it. A record's age reads as
// people write it.
func ExampleClient_Brand() {
	c := exampleClient()
	defer c.Close()
	_, err := c.Brand(context.Background(), "https://example.com/", sitediag.BrandOptions{Mode: "deep"})
	fmt.Println(err)

	res := sitediag.BrandResult{LastUpdated: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	fmt.Println(res.DataAge(time.Date(2026, 3, 1, 12, 12, 0, 0, time.UTC)))
	// Output:
	// sitediag: INVALID_PARAMETERS: mode: must be standard or enriched
	// 3h12m
}
