// Package brand reads a site's identity from its rendered page: name,
// logos, colours weighted by the area they paint, fonts, component
// styles, spacing, social profiles and key links, and (enriched) company
// facts from its structured data and extractive heuristics over its own
// text. A value the page does not give stays empty: nothing is invented.
//
// The browser side is one script (extract.js) evaluated in the rendered
// page, run twice: with the page's own colour scheme and with
// prefers-color-scheme: dark. The rest works on the parsed document
// (package content) and makes no request.
package brand

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

//go:embed extract.js
var extractJS string

// ExtractScript is the JavaScript function (no arguments) that reads a
// rendered page's computed styles into a Styles.
func ExtractScript() string { return extractJS }

// Record is the spec's brand data record.
type Record struct {
	Domain         string     `json:"domain"`
	Name           string     `json:"name"`
	Tagline        string     `json:"tagline"`
	Description    string     `json:"description"`
	Slogan         string     `json:"slogan"`
	Favicon        string     `json:"favicon"`
	BannerURL      string     `json:"bannerUrl"`
	IsNSFW         bool       `json:"isNsfw"`
	Logos          []Logo     `json:"logos"`
	Colors         Colors     `json:"colors"`
	ColorScheme    string     `json:"colorScheme"`
	Fonts          []Font     `json:"fonts"`
	FontSizes      FontSizes  `json:"fontSizes"`
	Components     Components `json:"components"`
	Spacing        Spacing    `json:"spacing"`
	SocialProfiles []Social   `json:"socialProfiles"`
	Links          Links      `json:"links"`
	Company        *Company   `json:"company,omitempty"`
	PageMeta       PageMeta   `json:"pageMeta"`
}

// Logo is one logo of the site.
type Logo struct {
	// Type is logo (a wordmark or a header logo), symbol (a square mark)
	// or icon (a touch or manifest icon).
	Type string `json:"type"`
	// URL is absolute, or a data: URI for an inline SVG.
	URL string `json:"url"`
	// Format is svg, png, jpeg, webp, gif or ico ("" when unknown).
	Format string `json:"format"`
	// Theme is light (meant for light backgrounds: the logo is dark) or
	// dark (meant for dark backgrounds), judged from the background it
	// sits on, or from its own colour for an SVG; "" when unknown.
	Theme string `json:"theme"`
}

// Colors are the page's palette and its roles.
type Colors struct {
	// Palette are the colours that cover most of the page's first
	// 3000 px, by share of painted area (usage, 0–1), largest first.
	Palette []Swatch `json:"palette"`
	// Primary is the primary button's colour, else the link colour when
	// the site sets one (not the browser's default), the first that is
	// not a neutral (black, white, grey), else a neutral button's;
	// Secondary the secondary button's; Background the page's; Text the
	// body text's; Accent the most used colour that is none of those;
	// Link the links'.
	Primary    string `json:"primary"`
	Secondary  string `json:"secondary"`
	Background string `json:"background"`
	Text       string `json:"text"`
	Accent     string `json:"accent"`
	Link       string `json:"link"`
}

// Swatch is one palette colour.
type Swatch struct {
	Hex   string  `json:"hex"`
	Usage float64 `json:"usage"`
}

// Font is one font family the site uses.
type Font struct {
	Family string `json:"family"`
	// Usage is heading, body or ui (buttons).
	Usage string `json:"usage"`
	// Source is google, adobe, custom (self-hosted @font-face) or system.
	Source string `json:"source"`
}

// FontSizes are computed sizes ("48px").
type FontSizes struct {
	H1   string `json:"h1"`
	H2   string `json:"h2"`
	Body string `json:"body"`
}

// Components are the computed styles of the main controls.
type Components struct {
	ButtonPrimary   *ComponentStyle `json:"buttonPrimary"`
	ButtonSecondary *ComponentStyle `json:"buttonSecondary"`
	Input           *ComponentStyle `json:"input"`
}

// ComponentStyle is one control's look.
type ComponentStyle struct {
	Background   string `json:"background"`
	TextColor    string `json:"textColor"`
	BorderColor  string `json:"borderColor"`
	BorderRadius string `json:"borderRadius"`
	Shadow       string `json:"shadow"`
}

// Spacing is the layout's rhythm.
type Spacing struct {
	// BaseUnit is the spacing step most paddings and margins are
	// multiples of (px); 0 when there is none.
	BaseUnit float64 `json:"baseUnit"`
	// BorderRadius is the most common corner radius.
	BorderRadius string `json:"borderRadius"`
}

// Social is a profile on a known network.
type Social struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// Links are the site's key pages, found by href and link text.
type Links struct {
	Blog    string `json:"blog"`
	Login   string `json:"login"`
	Signup  string `json:"signup"`
	Careers string `json:"careers"`
	Contact string `json:"contact"`
	Privacy string `json:"privacy"`
	Terms   string `json:"terms"`
	Pricing string `json:"pricing"`
}

// PageMeta are the page's own facts.
type PageMeta struct {
	Title        string `json:"title"`
	ThemeColor   string `json:"themeColor"`
	CanonicalURL string `json:"canonicalUrl"`
	Language     string `json:"language"`
}

// Company are the enriched facts.
type Company struct {
	FoundedYear            int       `json:"foundedYear,omitempty"`
	EmployeesRange         string    `json:"employeesRange,omitempty"`
	RevenueRange           string    `json:"revenueRange,omitempty"`
	Industry               string    `json:"industry,omitempty"`
	StockTicker            string    `json:"stockTicker,omitempty"`
	Location               *Location `json:"location,omitempty"`
	Kind                   string    `json:"kind,omitempty"`
	Summary                string    `json:"summary,omitempty"`
	TargetAudience         string    `json:"targetAudience,omitempty"`
	TargetAudienceSegments []string  `json:"targetAudienceSegments"`
	BrandVoice             []string  `json:"brandVoice"`
	UseCases               []string  `json:"useCases"`
}

// Location is where the company is.
type Location struct {
	City        string `json:"city,omitempty"`
	State       string `json:"state,omitempty"`
	Country     string `json:"country,omitempty"`
	CountryCode string `json:"countryCode,omitempty"`
}

// Styles is what ExtractScript returns.
type Styles struct {
	PageBackground string `json:"pageBackground"`
	Text           string `json:"text"`
	Link           string `json:"link"`
	// BrowserLink is the browser's own link colour, for a link no
	// author style reaches.
	BrowserLink string `json:"browserLink"`
	H1          *probe `json:"h1"`
	H2          *probe `json:"h2"`
	// BodyFont is the font that sets most of the visible text.
	BodyFont        bodyFont           `json:"bodyFont"`
	ButtonPrimary   *probe             `json:"buttonPrimary"`
	ButtonSecondary *probe             `json:"buttonSecondary"`
	Input           *probe             `json:"input"`
	Paint           map[string]float64 `json:"paint"`
	Logos           []logoCandidate    `json:"logos"`
	Faces           []fontFace         `json:"faces"`
	FontLinks       []string           `json:"fontLinks"`
	Spacing         []float64          `json:"spacing"`
	Radii           []string           `json:"radii"`
	Hero            string             `json:"hero"`
	HeroText        string             `json:"heroText"`
	HeroSub         string             `json:"heroSub"`
	Scheme          string             `json:"scheme"`
}

// probe is one element's computed style, with the browser's default
// style for its tag (UA): a value equal to the default is not the site's.
type probe struct {
	ComponentStyle
	FontFamily string `json:"fontFamily"`
	FontSize   string `json:"fontSize"`
	Tag        string `json:"tag"`
	Text       string `json:"text"`
	UA         struct {
		ComponentStyle
		FontFamily string `json:"fontFamily"`
	} `json:"ua"`
}

// bodyFont is the family (a CSS font-family list) that sets most of the
// page's visible text, its most used size, and the browser's default
// family for the elements that carry most of that text.
type bodyFont struct {
	Family   string `json:"family"`
	Size     string `json:"size"`
	UAFamily string `json:"uaFamily"`
}

type logoCandidate struct {
	Kind     string  `json:"kind"`
	Src      string  `json:"src"`
	SVG      string  `json:"svg"`
	Width    float64 `json:"width"`
	Height   float64 `json:"height"`
	Backdrop string  `json:"backdrop"`
	Fill     string  `json:"fill"`
}

type fontFace struct {
	Family string `json:"family"`
	Src    string `json:"src"`
	Sheet  string `json:"sheet"`
}

// ParseStyles reads ExtractScript's result.
func ParseStyles(raw []byte) (*Styles, error) {
	var s Styles
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("brand: the page's styles do not parse: %w", err)
	}
	return &s, nil
}
