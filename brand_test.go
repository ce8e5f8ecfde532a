package sitediag_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/brand"
	"github.com/sitediag/sitediag/internal/dnstest"
)

// brandSites serves each folder of testdata/brand as <folder>.test and
// counts the page loads of each.
type brandSites struct {
	port  string
	loads sync.Map // host → *atomic.Int32
}

func startBrandSites(t *testing.T) (*brandSites, *dnstest.Server) {
	t.Helper()
	dns := dnstest.Start(t)
	s := &brandSites{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := strings.Cut(r.Host, ":")
		name := strings.TrimSuffix(host, ".test")
		if r.URL.Path == "/" {
			n, _ := s.loads.LoadOrStore(host, new(atomic.Int32))
			n.(*atomic.Int32).Add(1)
		}
		http.FileServer(http.Dir("testdata/brand/"+name)).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.port = port(srv.URL)
	for _, site := range []string{"light-saas", "dark-site", "both-schemes", "inline-svg-logo", "css-background-logo",
		"self-hosted-fonts", "jsonld-localbusiness", "empty-page", "adult-rated", "shop", "title-tagline", "blog", "blocked-subresources",
		"ua-defaults", "article-font", "websafe-stack", "black-button", "masthead-link"} {
		dns.Add(t, site+".test. 60 IN A 127.0.0.1")
	}
	return s, dns
}

func (s *brandSites) url(site string) string { return "http://" + site + ".test:" + s.port + "/" }

func (s *brandSites) loadsOf(site string) int32 {
	n, ok := s.loads.Load(site + ".test")
	if !ok {
		return 0
	}
	return n.(*atomic.Int32).Load()
}

func brandClient(t *testing.T, dns *dnstest.Server, dataDir string) *sitediag.Client {
	t.Helper()
	return newClient(t, sitediag.Config{DNSServers: []string{dns.Addr}, DataDir: dataDir, AllowNetworks: loopback})
}

func TestBrandSites(t *testing.T) {
	needChromium(t)
	sites, dns := startBrandSites(t)
	c := brandClient(t, dns, "")
	ctx := context.Background()
	get := func(site, mode string) *brand.Record {
		t.Helper()
		res, err := c.Brand(ctx, sites.url(site), sitediag.BrandOptions{Mode: mode})
		if err != nil {
			t.Fatalf("%s: %v", site, err)
		}
		return res.Record
	}
	u := func(site, path string) string { return strings.TrimSuffix(sites.url(site), "/") + path }

	r := get("light-saas", "enriched")
	want := brand.Record{
		Domain: "light-saas.test", Name: "Ledgerly", Tagline: "Invoicing for freelancers",
		Description: "Send invoices, chase late payments and prepare your taxes.", Slogan: "Get paid, not paperwork",
		Favicon: u("light-saas", "/favicon.ico"), BannerURL: u("light-saas", "/img/og.png"),
		Logos: []brand.Logo{
			{Type: "logo", URL: u("light-saas", "/img/logo.png"), Format: "png", Theme: "light"},
			{Type: "logo", URL: "https://ledgerly.example/brand/logo-512.png", Format: "png"},
			{Type: "icon", URL: u("light-saas", "/apple-touch-icon.png"), Format: "png"},
			{Type: "icon", URL: u("light-saas", "/icons/icon-512.png"), Format: "png"},
		},
		ColorScheme: "light",
		Fonts:       []brand.Font{{Family: "Inter", Usage: "heading", Source: "google"}, {Family: "Inter", Usage: "body", Source: "google"}, {Family: "Inter", Usage: "ui", Source: "google"}},
		FontSizes:   brand.FontSizes{H1: "48px", H2: "32px", Body: "16px"},
		Components: brand.Components{
			ButtonPrimary:   &brand.ComponentStyle{Background: "#0f766e", TextColor: "#ffffff", BorderRadius: "8px"},
			ButtonSecondary: &brand.ComponentStyle{TextColor: "#0f766e", BorderColor: "#0f766e", BorderRadius: "8px"},
			// The input's white is the browser's default for an input.
			Input: &brand.ComponentStyle{TextColor: "#1f2937", BorderColor: "#d1d5db", BorderRadius: "8px"},
		},
		Spacing:        brand.Spacing{BaseUnit: 8, BorderRadius: "8px"},
		SocialProfiles: []brand.Social{{Name: "twitter", URL: "https://twitter.com/ledgerly"}, {Name: "linkedin", URL: "https://www.linkedin.com/company/ledgerly"}, {Name: "github", URL: "https://github.com/ledgerly"}},
		Links: brand.Links{Blog: u("light-saas", "/blog"), Login: u("light-saas", "/login"), Signup: u("light-saas", "/signup"),
			Careers: u("light-saas", "/careers"), Contact: u("light-saas", "/contact"), Privacy: u("light-saas", "/privacy"),
			Terms: u("light-saas", "/terms"), Pricing: u("light-saas", "/pricing")},
		PageMeta: brand.PageMeta{Title: "Ledgerly – Invoicing for freelancers", ThemeColor: "#0f766e", Language: "en"},
	}
	colors, company := r.Colors, r.Company
	r.Colors, r.Company = brand.Colors{}, nil
	if diff := cmp.Diff(want, *r); diff != "" {
		t.Errorf("light-saas (-want +got):\n%s", diff)
	}
	if colors.Primary != "#0f766e" || colors.Secondary != "#0f766e" || colors.Background != "#ffffff" || colors.Text != "#1f2937" ||
		colors.Link != "#0f766e" || len(colors.Palette) < 3 || colors.Palette[0].Hex != "#ffffff" {
		t.Errorf("light-saas colours: %+v", colors)
	}
	wantCompany := &brand.Company{FoundedYear: 2019, EmployeesRange: "11-50", Industry: "Financial services",
		Location: &brand.Location{City: "Leeds", State: "West Yorkshire", CountryCode: "GB"}, Kind: "company",
		Summary: "Send invoices, chase late payments and prepare your taxes.", TargetAudience: "freelancers",
		TargetAudienceSegments: []string{"freelancers"}, UseCases: []string{"Invoices in a minute", "Automatic reminders", "Tax ready exports"}}
	company.BrandVoice = nil
	wantCompany.BrandVoice = nil
	if diff := cmp.Diff(wantCompany, company); diff != "" {
		t.Errorf("light-saas company (-want +got):\n%s", diff)
	}

	r = get("dark-site", "")
	if r.ColorScheme != "dark" || r.Colors.Background != "#0b1020" || len(r.Logos) != 1 || r.Logos[0].Format != "svg" ||
		r.Logos[0].Theme != "dark" || !strings.HasPrefix(r.Logos[0].URL, "data:image/svg+xml;base64,") || r.Company != nil {
		t.Errorf("dark-site: scheme %q, background %q, logos %+v", r.ColorScheme, r.Colors.Background, r.Logos)
	}
	if r = get("both-schemes", ""); r.ColorScheme != "both" || r.Colors.Background != "#fafaf9" {
		t.Errorf("both-schemes: %q %q", r.ColorScheme, r.Colors.Background)
	}
	r = get("inline-svg-logo", "")
	if len(r.Logos) != 1 || r.Logos[0].Theme != "light" || r.Logos[0].Format != "svg" ||
		!cmp.Equal(r.SocialProfiles, []brand.Social{{Name: "instagram", URL: "https://www.instagram.com/fernwaytravel"}}) {
		t.Errorf("inline-svg-logo: logos %+v, social %+v (a share link is not a profile)", r.Logos, r.SocialProfiles)
	}
	// Its links keep the browser's blue: the browser's, not the brand's.
	if r.Colors.Link != "" || r.Colors.Primary != "" {
		t.Errorf("inline-svg-logo: link %q, primary %q", r.Colors.Link, r.Colors.Primary)
	}
	r = get("css-background-logo", "")
	if len(r.Logos) != 1 || r.Logos[0].URL != u("css-background-logo", "/img/brightside-logo.png") || r.Logos[0].Theme != "dark" ||
		r.Links.Contact != u("css-background-logo", "/contact-us") || r.Colors.Primary != "#f59e0b" {
		t.Errorf("css-background-logo: logos %+v, contact %q, primary %q", r.Logos, r.Links.Contact, r.Colors.Primary)
	}
	r = get("self-hosted-fonts", "")
	if !cmp.Equal(r.Fonts, []brand.Font{{Family: "Kiln Display", Usage: "heading", Source: "custom"}, {Family: "Kiln Text", Usage: "body", Source: "custom"}}) || r.FontSizes.H1 != "64px" {
		t.Errorf("self-hosted-fonts: %+v %+v", r.Fonts, r.FontSizes)
	}
	r = get("jsonld-localbusiness", "enriched")
	if r.Name != "Bäckerei Lindner" || r.Company == nil || r.Company.Kind != "local business" || r.Company.FoundedYear != 1987 ||
		r.Company.EmployeesRange != "14" || r.Company.Location.City != "Freiburg" || r.Company.Location.CountryCode != "DE" ||
		len(r.SocialProfiles) != 2 || r.Links.Privacy != u("jsonld-localbusiness", "/datenschutz") {
		t.Errorf("jsonld-localbusiness: %+v %+v %+v", r.Name, r.Company, r.SocialProfiles)
	}
	// An empty page gives an empty record: nothing is invented.
	r = get("empty-page", "")
	if r.Name != "" || r.Favicon != "" || len(r.Logos) != 0 || r.Tagline != "" || r.BannerURL != "" || len(r.SocialProfiles) != 0 ||
		r.Links != (brand.Links{}) || r.Colors.Primary != "" || len(r.Fonts) != 0 {
		t.Errorf("empty-page: %+v", r)
	}
	if r = get("adult-rated", ""); !r.IsNSFW {
		t.Error("adult-rated: not NSFW")
	}
	if r = get("light-saas", ""); r.IsNSFW {
		t.Error("light-saas: NSFW")
	}
	r = get("shop", "")
	if r.Name != "Outback Gear Co." || r.BannerURL != "https://outbackgear.example/img/banner.jpg" || r.Links.Login != u("shop", "/account/login") ||
		r.Links.Terms != u("shop", "/terms-of-service") || r.Colors.Primary != "#ea580c" || r.Colors.Secondary != "#ffffff" ||
		len(r.SocialProfiles) != 2 || r.Logos[0].Format != "svg" || r.Logos[0].Theme != "dark" {
		t.Errorf("shop: %+v", r)
	}
	if r = get("title-tagline", "enriched"); r.Name != "Acme" || r.Tagline != "Rockets for hobbyists and schools" ||
		!cmp.Equal(r.Company.TargetAudienceSegments, []string{"hobbyists", "schools"}) {
		t.Errorf("title-tagline: %q %q %+v", r.Name, r.Tagline, r.Company)
	}
	// The browser's defaults are not the brand: an unstyled button's grey,
	// the links' #0000ee, Times New Roman for text, the buttons' font.
	r = get("ua-defaults", "")
	if r.Colors.Primary != "" || r.Colors.Secondary != "" || r.Colors.Link != "" || len(r.Fonts) != 0 ||
		r.Components.ButtonPrimary != nil || r.Components.ButtonSecondary != nil || r.Components.Input != nil {
		t.Errorf("ua-defaults: colours %+v, fonts %+v, components %+v %+v %+v", r.Colors, r.Fonts,
			r.Components.ButtonPrimary, r.Components.ButtonSecondary, r.Components.Input)
	}
	// The body font is the article's, which sets most of the text, not
	// body's own (the masthead's).
	r = get("article-font", "")
	if !cmp.Equal(r.Fonts, []brand.Font{{Family: "Coast Serif", Usage: "heading", Source: "custom"}, {Family: "Coast Sans", Usage: "body", Source: "custom"}}) ||
		r.FontSizes.Body != "18px" || r.Colors.Primary != "#bb1919" || r.Colors.Link != "#bb1919" {
		t.Errorf("article-font: fonts %+v, sizes %+v, colours %+v", r.Fonts, r.FontSizes, r.Colors)
	}
	if r = get("blog", ""); len(r.SocialProfiles) != 2 || r.SocialProfiles[0].Name != "bluesky" || r.Fonts[0].Family != "Source Serif Pro" {
		t.Errorf("blog: %+v %+v", r.SocialProfiles, r.Fonts)
	}
	// A font is its stack's first family (Georgia, not its fallback
	// Utopia); a neutral is the primary colour only when nothing coloured
	// is: a black button beside blue links leaves blue, a white title
	// link on a dark masthead is no colour of the brand's.
	for _, tc := range []struct {
		site, primary string
		fonts         []brand.Font
	}{
		{"websafe-stack", "#7a2f0b", []brand.Font{{Family: "Georgia", Usage: "heading", Source: "system"}, {Family: "Georgia", Usage: "body", Source: "system"}}},
		{"black-button", "#1a0dab", []brand.Font{{Family: "Work Sans", Usage: "heading", Source: "system"}, {Family: "Merriweather", Usage: "body", Source: "system"}}},
		{"masthead-link", "", []brand.Font{{Family: "Georgia", Usage: "heading", Source: "system"}, {Family: "Helvetica Neue", Usage: "body", Source: "system"}}},
	} {
		if r = get(tc.site, ""); r.Colors.Primary != tc.primary || !cmp.Equal(r.Fonts, tc.fonts) {
			t.Errorf("%s: primary %q, want %q; fonts %+v, want %+v", tc.site, r.Colors.Primary, tc.primary, r.Fonts, tc.fonts)
		}
	}
}

func TestBrandCache(t *testing.T) {
	needChromium(t)
	sites, dns := startBrandSites(t)
	dir := t.TempDir()
	c := brandClient(t, dns, dir)
	ctx := context.Background()
	target := sites.url("light-saas")

	// Concurrent first requests share one extraction.
	var wg sync.WaitGroup
	results := make([]*sitediag.BrandResult, 3)
	for i := range results {
		wg.Go(func() {
			res, err := c.Brand(ctx, target, sitediag.BrandOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = res
		})
	}
	wg.Wait()
	if n := sites.loadsOf("light-saas"); n != 1 {
		t.Errorf("three concurrent requests loaded the page %d times, want 1", n)
	}
	first := results[0]
	if first == nil || first.Cached || first.Domain != "light-saas.test" || first.Mode != "standard" {
		t.Fatalf("first: %+v", first)
	}
	hit, err := c.Brand(ctx, target, sitediag.BrandOptions{})
	if err != nil || !hit.Cached || !hit.LastUpdated.Equal(first.LastUpdated) || hit.Record.Name != "Ledgerly" || sites.loadsOf("light-saas") != 1 {
		t.Errorf("hit: %+v, %v", hit, err)
	}
	refreshed, err := c.Brand(ctx, target, sitediag.BrandOptions{Refresh: sitediag.On})
	if err != nil || refreshed.Cached || !refreshed.RefreshRequested || sites.loadsOf("light-saas") != 2 {
		t.Errorf("refresh: %+v, %v", refreshed, err)
	}
	// The mode is part of the key.
	if enriched, err := c.Brand(ctx, target, sitediag.BrandOptions{Mode: "enriched"}); err != nil || enriched.Cached || enriched.Record.Company == nil {
		t.Errorf("enriched miss: %+v, %v", enriched, err)
	}
	// A new client on the same data directory keeps the cache.
	c2 := brandClient(t, dns, dir)
	again, err := c2.Brand(ctx, target, sitediag.BrandOptions{})
	if err != nil || !again.Cached || !again.LastUpdated.Equal(refreshed.LastUpdated) || sites.loadsOf("light-saas") != 3 {
		t.Errorf("after restart: %+v, %v (loads %d)", again, err, sites.loadsOf("light-saas"))
	}

	for _, tc := range []struct {
		url  string
		opts sitediag.BrandOptions
		code sitediag.Code
	}{
		{"ftp://light-saas.test/", sitediag.BrandOptions{}, sitediag.CodeInvalidURL},
		{target, sitediag.BrandOptions{Mode: "deep"}, sitediag.CodeInvalidParameters},
		{"http://169.254.169.254/", sitediag.BrandOptions{}, sitediag.CodeTargetNotAllowed},
		{"http://no-such.test/", sitediag.BrandOptions{}, sitediag.CodeUnableToConnect},
	} {
		_, err := c.Brand(ctx, tc.url, tc.opts)
		wantCode(t, err, tc.code)
	}
}

// downCache is a shared cache whose engine is down.
type downCache struct{}

var errCacheDown = errors.New("cache down")

func (downCache) Get(context.Context, string) (*sitediag.CachedBrand, error) {
	return nil, errCacheDown
}
func (downCache) Set(context.Context, string, *sitediag.CachedBrand) error { return errCacheDown }

// TestBrandCacheDown: a cache that fails is bypassed, the record is
// extracted and returned.
func TestBrandCacheDown(t *testing.T) {
	needChromium(t)
	sites, dns := startBrandSites(t)
	c := newClient(t, sitediag.Config{DNSServers: []string{dns.Addr}, BrandCache: downCache{}, AllowNetworks: loopback})
	for range 2 {
		res, err := c.Brand(context.Background(), sites.url("light-saas"), sitediag.BrandOptions{})
		if err != nil || res.Cached || res.Record.Name != "Ledgerly" {
			t.Fatalf("with the cache down: %+v, %v; want a fresh record", res, err)
		}
	}
	if n := sites.loadsOf("light-saas"); n != 2 {
		t.Errorf("two requests with the cache down loaded the page %d times, want 2", n)
	}
}

// TestBrandBlockedSubresources: what the page asks of refused addresses
// is not loaded, does not fail the extraction and is counted.
func TestBrandBlockedSubresources(t *testing.T) {
	needChromium(t)
	sites, dns := startBrandSites(t)
	c := brandClient(t, dns, "")
	res, err := c.Brand(context.Background(), sites.url("blocked-subresources"), sitediag.BrandOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.BlockedRequests != 3 || res.Record.Name != "Tidewell" || res.Record.Colors.Text != "#334155" {
		t.Errorf("blocked %d (want 3: a stylesheet, a script, an image), name %q, text %q", res.BlockedRequests, res.Record.Name, res.Record.Colors.Text)
	}
}

func TestMemoryBrandCache(t *testing.T) {
	file := t.TempDir() + "/cache.json"
	c := sitediag.NewMemoryBrandCache(2, time.Hour, file)
	ctx := context.Background()
	now := time.Now()
	for _, k := range []string{"a", "b", "c"} {
		if err := c.Set(ctx, k, &sitediag.CachedBrand{Record: &brand.Record{Name: k}, FetchedAt: now, Mode: "standard"}); err != nil {
			t.Fatal(err)
		}
	}
	if e, _ := c.Get(ctx, "a"); e != nil {
		t.Error("the least recently used entry was not evicted")
	}
	reloaded := sitediag.NewMemoryBrandCache(2, time.Hour, file)
	if e, _ := reloaded.Get(ctx, "c"); e == nil || e.Record.Name != "c" {
		t.Errorf("reloaded: %+v", e)
	}
	stale := sitediag.NewMemoryBrandCache(2, time.Nanosecond, file)
	if e, _ := stale.Get(ctx, "c"); e != nil {
		t.Error("an expired entry was served")
	}
}

func TestBrandDataAge(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for d, want := range map[time.Duration]string{
		30 * time.Second: "30s", 12 * time.Minute: "12m", 3*time.Hour + 12*time.Minute: "3h12m", 5*24*time.Hour + time.Hour: "5d",
	} {
		r := sitediag.BrandResult{LastUpdated: now.Add(-d)}
		if got := r.DataAge(now); got != want {
			t.Errorf("%v: got %q, want %q", d, got, want)
		}
	}
}
