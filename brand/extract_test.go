package brand_test

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sitediag/sitediag/brand"
	"github.com/sitediag/sitediag/content"
)

// page parses the saved page testdata/brand/<site>/index.html as served
// at http://<site>.test/.
func page(t *testing.T, site string) *content.Document {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("..", "testdata", "brand", site, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("http://" + site + ".test/")
	d, err := content.Parse(body, "text/html; charset=utf-8", u)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// styles is what the extraction script reports, as the browser would.
func styles(t *testing.T, raw string) *brand.Styles {
	t.Helper()
	s, err := brand.ParseStyles([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// markup is what Extract reads from a page's markup alone.
type markup struct {
	Name, Tagline, Description, Slogan string
	Social                             []brand.Social
	Links                              brand.Links
	NSFW                               bool
	Meta                               brand.PageMeta
}

// TestExtractSavedPages extracts each saved page with the styles of a
// plain page, and checks what its markup says (the fixtures of the
// Chromium test TestBrandSites, without the browser).
func TestExtractSavedPages(t *testing.T) {
	u := func(site, path string) string { return "http://" + site + ".test" + path }
	for _, tc := range []struct {
		site string
		want markup
	}{
		{"light-saas", markup{
			Name: "Ledgerly", Tagline: "Invoicing for freelancers", Slogan: "Get paid, not paperwork",
			Description: "Send invoices, chase late payments and prepare your taxes.",
			Social: []brand.Social{{Name: "twitter", URL: "https://twitter.com/ledgerly"},
				{Name: "linkedin", URL: "https://www.linkedin.com/company/ledgerly"}, {Name: "github", URL: "https://github.com/ledgerly"}},
			Links: brand.Links{Blog: u("light-saas", "/blog"), Login: u("light-saas", "/login"), Signup: u("light-saas", "/signup"),
				Careers: u("light-saas", "/careers"), Contact: u("light-saas", "/contact"), Privacy: u("light-saas", "/privacy"),
				Terms: u("light-saas", "/terms"), Pricing: u("light-saas", "/pricing")},
			Meta: brand.PageMeta{Title: "Ledgerly – Invoicing for freelancers", ThemeColor: "#0f766e", Language: "en"},
		}},
		{"empty-page", markup{Social: []brand.Social{}}},
		{"title-tagline", markup{Name: "Acme", Tagline: "Rockets for hobbyists and schools"}},
		{"adult-rated", markup{Name: "Members area", NSFW: true}},
		{"inline-svg-logo", markup{Name: "Fernway Travel", Social: []brand.Social{{Name: "instagram", URL: "https://www.instagram.com/fernwaytravel"}}}},
		{"jsonld-localbusiness", markup{Name: "Bäckerei Lindner"}},
		{"shop", markup{Name: "Outback Gear Co."}},
	} {
		t.Run(tc.site, func(t *testing.T) {
			r := brand.Extract(brand.Inputs{Doc: page(t, tc.site), Light: styles(t, `{"pageBackground":"#ffffff"}`)})
			got := markup{Name: r.Name, Tagline: r.Tagline, Description: r.Description, Slogan: r.Slogan,
				Social: r.SocialProfiles, Links: r.Links, NSFW: r.IsNSFW, Meta: r.PageMeta}
			// Only the fields a case names are compared, but for NSFW.
			if tc.want.Social == nil {
				got.Social = nil
			}
			if tc.want.Links == (brand.Links{}) && tc.site != "empty-page" {
				got.Links = brand.Links{}
			}
			if tc.want.Meta == (brand.PageMeta{}) {
				got.Meta = brand.PageMeta{}
			}
			for _, f := range []struct{ want, got *string }{{&tc.want.Tagline, &got.Tagline}, {&tc.want.Description, &got.Description},
				{&tc.want.Slogan, &got.Slogan}} {
				if *f.want == "" && tc.site != "empty-page" {
					*f.got = ""
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.site, diff)
			}
		})
	}
}

// TestExtractFonts: the font of each usage is its stack's first family,
// the designer's choice, never a fallback after it; its source is the
// stylesheet or @font-face that provides it.
func TestExtractFonts(t *testing.T) {
	d := page(t, "empty-page")
	for _, tc := range []struct {
		name, styles string
		want         []brand.Font
	}{
		{"named first", `{"h1":{"fontFamily":"Inter, system-ui, sans-serif"},"bodyFont":{"Family":"Inter, sans-serif"},
			"fontLinks":["https://fonts.googleapis.com/css2?family=Inter:wght@400;700"]}`,
			[]brand.Font{{Family: "Inter", Usage: "heading", Source: "google"}, {Family: "Inter", Usage: "body", Source: "google"}}},
		{"system stack before a web font", `{"bodyFont":{"Family":"-apple-system, BlinkMacSystemFont, \"Segoe UI\", \"Kiln Text\", sans-serif"},
			"faces":[{"family":"Kiln Text","src":"/fonts/kiln.woff2"}]}`,
			[]brand.Font{{Family: "-apple-system", Usage: "body", Source: "system"}}},
		{"web safe before its fallbacks", `{"h1":{"fontFamily":"Georgia, Utopia, \"Palatino Linotype\", Palatino, serif"},
			"bodyFont":{"Family":"Georgia, Utopia, \"Palatino Linotype\", Palatino, serif"}}`,
			[]brand.Font{{Family: "Georgia", Usage: "heading", Source: "system"}, {Family: "Georgia", Usage: "body", Source: "system"}}},
		{"web safe only", `{"h1":{"fontFamily":"\"Helvetica Neue\", Arial, sans-serif"},"bodyFont":{"Family":"Georgia,serif"}}`,
			[]brand.Font{{Family: "Helvetica Neue", Usage: "heading", Source: "system"}, {Family: "Georgia", Usage: "body", Source: "system"}}},
		{"generic only", `{"bodyFont":{"Family":"sans-serif"},"buttonPrimary":{"fontFamily":"system-ui"}}`,
			[]brand.Font{{Family: "sans-serif", Usage: "body", Source: "system"}, {Family: "system-ui", Usage: "ui", Source: "system"}}},
		{"adobe", `{"h1":{"fontFamily":"'Proxima Nova', Arial"},"fontLinks":["https://use.typekit.net/abc1234.css"]}`,
			[]brand.Font{{Family: "Proxima Nova", Usage: "heading", Source: "adobe"}}},
		{"none", `{}`, []brand.Font{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := brand.Extract(brand.Inputs{Doc: d, Light: styles(t, tc.styles)})
			if diff := cmp.Diff(tc.want, r.Fonts); diff != "" {
				t.Errorf("fonts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExtractColorScheme: light or dark by the page's background, both
// when the dark scheme darkens a light page.
func TestExtractColorScheme(t *testing.T) {
	d := page(t, "empty-page")
	for _, tc := range []struct{ light, dark, want string }{
		{`{"pageBackground":"#ffffff"}`, ``, "light"},
		{`{"pageBackground":"#0b1020"}`, ``, "dark"},
		{`{"pageBackground":"#fafaf9"}`, `{"pageBackground":"#111111"}`, "both"},
		{`{"pageBackground":"#fafaf9"}`, `{"pageBackground":"#fafaf9"}`, "light"},
		{`{}`, ``, ""},
	} {
		in := brand.Inputs{Doc: d, Light: styles(t, tc.light)}
		if tc.dark != "" {
			in.Dark = styles(t, tc.dark)
		}
		if got := brand.Extract(in).ColorScheme; got != tc.want {
			t.Errorf("light %s, dark %s: %q, want %q", tc.light, tc.dark, got, tc.want)
		}
	}
}

// TestExtractPrimary: the primary colour is the primary button's, else
// the site's link colour, the first that is not a neutral; a neutral
// button's only when neither is coloured. Each case is a saved page of
// testdata/brand with the styles Chromium reads from it.
func TestExtractPrimary(t *testing.T) {
	for _, tc := range []struct {
		site, styles, want string
	}{
		{"light-saas", `{"link":"#0f766e","browserLink":"#0000ee","buttonPrimary":{"background":"#0f766e","ua":{"background":"#efefef"}}}`, "#0f766e"},
		{"black-button", `{"link":"#1a0dab","browserLink":"#0000ee","buttonPrimary":{"background":"#000000","ua":{"background":"#efefef"}}}`, "#1a0dab"},
		{"black-button", `{"link":"#111111","browserLink":"#0000ee","buttonPrimary":{"background":"#000000","ua":{"background":"#efefef"}}}`, "#000000"},
		{"black-button", `{"link":"#1a0dab","browserLink":"#0000ee","buttonPrimary":{"background":"#111827","ua":{"background":"#efefef"}}}`, "#1a0dab"},
		{"black-button", `{"link":"#1a0dab","browserLink":"#0000ee","buttonPrimary":{"background":"#0b2545","ua":{"background":"#efefef"}}}`, "#0b2545"},
		{"websafe-stack", `{"link":"#7a2f0b","browserLink":"#0000ee"}`, "#7a2f0b"},
		{"masthead-link", `{"link":"#ffffff","browserLink":"#0000ee"}`, ""},
		{"ua-defaults", `{"link":"#0000ee","browserLink":"#0000ee","buttonPrimary":{"background":"#efefef","ua":{"background":"#efefef"}}}`, ""},
	} {
		r := brand.Extract(brand.Inputs{Doc: page(t, tc.site), Light: styles(t, tc.styles)})
		if r.Colors.Primary != tc.want {
			t.Errorf("%s %s: primary %q, want %q", tc.site, tc.styles, r.Colors.Primary, tc.want)
		}
	}
}
