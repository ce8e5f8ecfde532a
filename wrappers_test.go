package sitediag_test

import (
	"context"
	"testing"

	"github.com/sitediag/sitediag"
)

// wrappers are the package-level functions, each on the default client.
var wrappers = map[string]func(ctx context.Context, target string) error{
	"Brand": func(ctx context.Context, u string) error {
		_, err := sitediag.Brand(ctx, u, sitediag.BrandOptions{})
		return err
	},
	"BrokenLink": func(ctx context.Context, u string) error {
		_, err := sitediag.BrokenLink(ctx, u, sitediag.BrokenLinkOptions{})
		return err
	},
	"DNSRecords": func(ctx context.Context, u string) error {
		_, err := sitediag.DNSRecords(ctx, u, sitediag.DNSRecordsOptions{})
		return err
	},
	"DNSSEC": func(ctx context.Context, u string) error {
		_, err := sitediag.DNSSEC(ctx, u, sitediag.DNSSECOptions{})
		return err
	},
	"HTTPHeader": func(ctx context.Context, u string) error {
		_, err := sitediag.HTTPHeader(ctx, u, sitediag.HTTPHeaderOptions{})
		return err
	},
	"HTTPProtocol": func(ctx context.Context, u string) error {
		_, err := sitediag.HTTPProtocol(ctx, u, sitediag.HTTPProtocolOptions{})
		return err
	},
	"Lighthouse": func(ctx context.Context, u string) error {
		_, err := sitediag.Lighthouse(ctx, u, sitediag.LighthouseOptions{})
		return err
	},
	"LoadTime": func(ctx context.Context, u string) error {
		_, err := sitediag.LoadTime(ctx, u, sitediag.LoadTimeOptions{})
		return err
	},
	"MixedContent": func(ctx context.Context, u string) error {
		_, err := sitediag.MixedContent(ctx, u, sitediag.MixedContentOptions{})
		return err
	},
	"MTR": func(ctx context.Context, u string) error {
		_, err := sitediag.MTR(ctx, u, sitediag.MTROptions{})
		return err
	},
	"OpenPort": func(ctx context.Context, u string) error {
		_, err := sitediag.OpenPort(ctx, u, sitediag.OpenPortOptions{})
		return err
	},
	"Ping": func(ctx context.Context, u string) error {
		_, err := sitediag.Ping(ctx, u, sitediag.PingOptions{})
		return err
	},
	"MetaScrape": func(ctx context.Context, u string) error {
		_, err := sitediag.MetaScrape(ctx, u, sitediag.MetaScrapeOptions{})
		return err
	},
	"Screenshot": func(ctx context.Context, u string) error {
		_, err := sitediag.Screenshot(ctx, u, sitediag.ScreenshotOptions{})
		return err
	},
	"TLSScan": func(ctx context.Context, u string) error {
		_, err := sitediag.TLSScan(ctx, u, sitediag.TLSScanOptions{})
		return err
	},
	"TTFB": func(ctx context.Context, u string) error {
		_, err := sitediag.TTFB(ctx, u, sitediag.TTFBOptions{})
		return err
	},
	"Up": func(ctx context.Context, u string) error {
		_, err := sitediag.Up(ctx, u, sitediag.UpOptions{})
		return err
	},
	"RedirectCheck": func(ctx context.Context, u string) error {
		_, err := sitediag.RedirectCheck(ctx, u, sitediag.RedirectCheckOptions{})
		return err
	},
	"URL2PDF": func(ctx context.Context, u string) error {
		_, err := sitediag.URL2PDF(ctx, u, sitediag.URL2PDFOptions{})
		return err
	},
	"WebScrape": func(ctx context.Context, u string) error {
		_, err := sitediag.WebScrape(ctx, u, sitediag.WebScrapeOptions{})
		return err
	},
}

// TestPackageWrappers calls every package-level function: each reaches
// its operation on the default client, which checks its input and keeps
// the full SSRF policy (no allowed network): an address on a refused
// network is refused without a connection.
func TestPackageWrappers(t *testing.T) {
	if len(wrappers) != 20 {
		t.Fatalf("%d wrappers listed, want the 20 operations", len(wrappers))
	}
	ctx := context.Background()
	dnsOps := map[string]bool{"DNSRecords": true, "DNSSEC": true}
	for name, call := range wrappers {
		t.Run(name, func(t *testing.T) {
			if code := sitediag.CodeOf(call(ctx, "javascript:alert(1)")); code != sitediag.CodeInvalidURL && code != sitediag.CodeInvalidParameters {
				t.Errorf("javascript:alert(1): code %q, want INVALID_URL or INVALID_PARAMETERS", code)
			}
			if dnsOps[name] {
				return // a name, not an address: nothing to refuse
			}
			target := "http://169.254.169.254/latest/meta-data/"
			if name == "MTR" || name == "Ping" || name == "OpenPort" {
				target = "169.254.169.254"
			}
			code := sitediag.CodeOf(call(ctx, target))
			if name == "Lighthouse" && code == sitediag.CodeLighthouseUnavailable {
				return // not installed here: that is checked before the target
			}
			if code != sitediag.CodeTargetNotAllowed {
				t.Errorf("%s: code %q, want TARGET_NOT_ALLOWED", target, code)
			}
		})
	}
}
