package content

import (
	"encoding/json"
	"net/url"

	"github.com/sitediag/sitediag/internal/htmlx"
)

// MaxManifestBytes is how much of a web app manifest is read.
const MaxManifestBytes = 256 << 10

// ManifestIcons returns the icons a web app manifest lists, resolved
// against the manifest's URL; nil when body is not a manifest.
func ManifestIcons(body []byte, manifestURL *url.URL) []Icon {
	var m struct {
		Icons []struct {
			Src     string `json:"src"`
			Sizes   string `json:"sizes"`
			Type    string `json:"type"`
			Purpose string `json:"purpose"`
		} `json:"icons"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return nil
	}
	var icons []Icon
	for _, i := range m.Icons {
		if u := htmlx.Resolve(manifestURL, i.Src); u != nil {
			icons = append(icons, Icon{URL: u.String(), Rel: "manifest", Sizes: i.Sizes, Type: i.Type, Source: "manifest"})
		}
	}
	return icons
}
