package sitediag

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/sitediag/sitediag/brand"
	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/content"
)

// BrandRecord is the spec's brand data record; see brand.Record.
type BrandRecord = brand.Record

// BrandOptions are the options of Brand. The zero value reads the
// standard record, from the cache when it has a fresh one.
type BrandOptions struct {
	// Refresh extracts anew, bypassing the cache, and rewrites it.
	Refresh Toggle `json:"refresh" api:"default=false"`
	// Mode is standard, or enriched (adds company facts).
	Mode string `json:"mode" api:"enum=standard|enriched,default=standard"`
	// Timeout, in seconds, bounds the extraction's work on the page, as
	// PageOptions.Timeout.
	Timeout Seconds `json:"timeout" api:"min=1"`
}

// BrandResult is a site's brand record and where it came from.
type BrandResult struct {
	// Record is the brand record, the API's data.
	Record *BrandRecord `json:"record"`
	// Domain is the cache key's domain (the host without www.).
	Domain string `json:"domain"`
	// Mode is the record's mode.
	Mode string `json:"mode"`
	// Cached says the record came from the cache.
	Cached bool `json:"cached"`
	// LastUpdated is when the record was extracted.
	LastUpdated time.Time `json:"lastUpdated"`
	// RefreshRequested echoes the refresh option.
	RefreshRequested bool `json:"refreshRequested"`
	// BlockedRequests counts what the page tried to load that the SSRF
	// policy refused (0 for a cached record).
	BlockedRequests int `json:"blockedRequests"`
}

// DataAge is the record's age at now, for people: "45s", "12m",
// "3h12m", "5d".
func (r *BrandResult) DataAge(now time.Time) string {
	d := now.Sub(r.LastUpdated)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d.Seconds())))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// Brand reads the identity of rawURL's domain from the domain's own home
// page (https://domain/, then http://domain/, then the same on www.;
// see homePages), whatever path or scheme rawURL has, rendered
// in Chromium (computed styles with its own colour scheme and with
// prefers-color-scheme: dark), its HTML, web app manifest and JSON-LD;
// see brand.Extract and, for the enriched mode, brand.Enrich and
// Config.BrandEnricher. Records are cached per domain and mode
// (Config.BrandCache); concurrent requests for the same one share one
// extraction. A cache that fails to read or write is bypassed: the
// record is extracted anew and returned. Errors: CodeInvalidURL, CodeInvalidParameters,
// CodeTargetNotAllowed, CodeUnableToConnect, CodeBrowserUnavailable,
// CodeBusy, CodeBrandFailed.
func (c *Client) Brand(ctx context.Context, rawURL string, opts BrandOptions) (_ *BrandResult, err error) {
	ctx, end := c.startOp(ctx, "Brand", rawURL, opts)
	defer end(&err)
	if err := c.resolve(&opts); err != nil {
		return nil, err
	}
	mode := opts.Mode
	p, err := c.newPage(rawURL, &PageOptions{Timeout: opts.Timeout}, 0)
	if err != nil {
		return nil, err
	}
	domain := strings.TrimPrefix(strings.ToLower(p.target.URL.Hostname()), "www.")
	homes, site := homePages(domain, p.target.URL.Port())
	key := site + "|" + mode
	if !opts.Refresh.Bool() {
		if e, err := c.brandCache.Get(ctx, key); err == nil && e != nil {
			return &BrandResult{Record: e.Record, Domain: domain, Mode: mode, Cached: true, LastUpdated: e.FetchedAt}, nil
		}
	}
	v, err, _ := c.brandFlight.Do(key, func() (any, error) {
		// The extraction outlives one caller's cancellation: others may
		// share it. The client's timeout bounds it.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.Timeout)
		defer cancel()
		res, err := c.extractHomeBrand(ctx, p, homes, mode)
		if err != nil {
			return nil, err
		}
		// A cache that cannot be written (a shared one that is down) does
		// not fail the job: the record is right, only not kept.
		c.brandCache.Set(ctx, key, &CachedBrand{Record: res.Record, FetchedAt: res.LastUpdated, Mode: mode})
		return res, nil
	})
	if err != nil {
		return nil, err
	}
	res := *v.(*BrandResult)
	res.Domain, res.RefreshRequested = domain, opts.Refresh.Bool()
	return &res, nil
}

// homePages are the pages a domain's brand record is read from, in
// order: its home page over HTTPS, then over HTTP, on the apex, then on
// www. — never the path or scheme the caller sent, so that no caller
// chooses what becomes everyone's record of the domain. On the default
// ports (none sent, 80 or 443) the site is the domain; on another port
// it is domain:port, a site of its own, cached apart from the domain.
func homePages(domain, port string) (pages []string, site string) {
	hosts := []string{domain}
	if net.ParseIP(domain) == nil {
		hosts = append(hosts, "www."+domain)
	}
	site = domain
	if port != "" && port != "80" && port != "443" {
		site = net.JoinHostPort(domain, port)
	}
	for _, h := range hosts {
		if site != domain {
			h = net.JoinHostPort(h, port)
		} else if strings.Contains(h, ":") {
			h = "[" + h + "]"
		}
		pages = append(pages, "https://"+h+"/", "http://"+h+"/")
	}
	return pages, site
}

// extractHomeBrand extracts the record from the first of homes that
// loads: a page that cannot be reached (no address, no connection, a
// failed TLS handshake) moves on to the next, anything else is the
// outcome. When none loads, the first one's error is returned.
func (c *Client) extractHomeBrand(ctx context.Context, p *page, homes []string, mode string) (*BrandResult, error) {
	var first error
	for _, home := range homes {
		t, err := parseURL(home)
		if err != nil {
			return nil, err
		}
		hp := *p
		hp.target = t
		res, err := c.extractBrand(ctx, &hp, mode)
		var e *Error
		if err == nil || !errors.As(err, &e) || e.Code != CodeUnableToConnect || ctx.Err() != nil {
			return res, err
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// extractBrand renders the page and builds the record.
func (c *Client) extractBrand(ctx context.Context, p *page, mode string) (*BrandResult, error) {
	var light, dark []byte
	var html string
	visit, err := c.visit(ctx, p, func(ctx context.Context, j *browser.Job) error {
		var err error
		if light, err = j.Eval(ctx, brand.ExtractScript()); err != nil {
			return err
		}
		if html, err = j.HTML(ctx, MaxDocumentBytes); err != nil {
			return err
		}
		if err := j.SetColorScheme(ctx, browser.Dark); err != nil {
			return err
		}
		dark, err = j.Eval(ctx, brand.ExtractScript())
		return err
	})
	if err != nil {
		return nil, mapBrowserError(err, CodeBrandFailed)
	}
	doc, err := renderedDocument(html, visit.RedirectedURL, CodeBrandFailed)
	if err != nil {
		return nil, err
	}
	in := brand.Inputs{Doc: doc}
	if in.Light, err = brand.ParseStyles(light); err != nil {
		return nil, NewError(CodeBrandFailed, err, "the page's styles could not be read")
	}
	in.Dark, _ = brand.ParseStyles(dark)
	in.Manifest = c.manifest(ctx, p, content.ExtractMetadata(doc).Manifest)
	rec := brand.Extract(in)
	if mode == "enriched" {
		brand.Enrich(rec, doc)
		if c.cfg.BrandEnricher != nil {
			if err := c.cfg.BrandEnricher.Enrich(ctx, rec, brand.SiteText(doc)); err != nil {
				return nil, NewError(CodeBrandFailed, err, "the enricher failed")
			}
		}
	}
	return &BrandResult{Record: rec, Mode: mode, LastUpdated: c.cfg.Now().UTC(), BlockedRequests: visit.BlockedRequests}, nil
}

// Brand calls Client.Brand on the default client.
func Brand(ctx context.Context, rawURL string, opts BrandOptions) (*BrandResult, error) {
	return onDefault(ctx, rawURL, opts, (*Client).Brand)
}
