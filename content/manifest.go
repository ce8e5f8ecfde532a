package content

import (
	"encoding/json"
	"net/url"

	"github.com/sitediag/sitediag/internal/htmlx"
)

// MaxManifestBytes is how much of a web app manifest is read.
const MaxManifestBytes = 256 << 10

// Manifest is what sitediag reads of a web app manifest.
type Manifest struct {
	Name, ShortName string
	// Icons are resolved against the manifest's URL.
	Icons []Icon
}

// ParseManifest reads a web app manifest; nil when body is not one.
func ParseManifest(body []byte, manifestURL *url.URL) *Manifest {
	var m struct {
		Name      string `json:"name"`
		ShortName string `json:"short_name"`
		Icons     []struct {
			Src     string `json:"src"`
			Sizes   string `json:"sizes"`
			Type    string `json:"type"`
			Purpose string `json:"purpose"`
		} `json:"icons"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return nil
	}
	out := &Manifest{Name: clean(m.Name), ShortName: clean(m.ShortName)}
	for _, i := range m.Icons {
		if u := htmlx.Resolve(manifestURL, i.Src); u != nil {
			out.Icons = append(out.Icons, Icon{URL: u.String(), Rel: "manifest", Sizes: i.Sizes, Type: i.Type, Source: "manifest"})
		}
	}
	return out
}
