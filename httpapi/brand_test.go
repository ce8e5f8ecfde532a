package httpapi_test

import (
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/apitest"
)

func TestBrandEnvelope(t *testing.T) {
	needChromium(t)
	api := apitest.New(t, apitest.Options{})
	target := serveAs(t, api, "www.ledgerly.test", http.FileServer(http.Dir("../testdata/brand/light-saas"))) + "/"

	resp := api.Post(t, "/brand", map[string]any{"url": target})
	meta, data := resp.WantSuccess(t)
	wantMeta(t, meta, map[string]any{"domain": "ledgerly.test", "mode": "standard", "cached": false, "refreshRequested": false})
	if last, err := time.Parse(time.RFC3339, meta["lastUpdated"].(string)); err != nil || time.Since(last) > time.Minute {
		t.Errorf("lastUpdated %v: %v", meta["lastUpdated"], err)
	}
	if !regexp.MustCompile(`^\d+[smhd]`).MatchString(meta["dataAge"].(string)) {
		t.Errorf("dataAge %v", meta["dataAge"])
	}
	rec, _ := data.(map[string]any)
	colors, _ := rec["colors"].(map[string]any)
	if rec["name"] != "Ledgerly" || colors["primary"] != "#0f766e" || rec["company"] != nil {
		t.Errorf("data: %v", data)
	}
	for _, k := range []string{"domain", "name", "tagline", "description", "slogan", "favicon", "bannerUrl", "isNsfw", "logos",
		"colors", "colorScheme", "fonts", "fontSizes", "components", "spacing", "socialProfiles", "links", "pageMeta"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("data lacks %s", k)
		}
	}

	meta, _ = api.Post(t, "/brand", map[string]any{"url": target}).WantSuccess(t)
	wantMeta(t, meta, map[string]any{"cached": true, "refreshRequested": false})
	meta, data = api.Post(t, "/brand", map[string]any{"url": target, "refresh": true, "mode": "enriched"}).WantSuccess(t)
	wantMeta(t, meta, map[string]any{"cached": false, "refreshRequested": true, "mode": "enriched"})
	if company, _ := data.(map[string]any)["company"].(map[string]any); company["foundedYear"] != float64(2019) {
		t.Errorf("enriched company: %v", company)
	}

	api.Post(t, "/brand", map[string]any{"url": "mailto:x@ledgerly.test"}).WantError(t, 400, sitediag.CodeInvalidURL)
	api.Post(t, "/brand", map[string]any{"url": target, "mode": "llm"}).WantError(t, 400, sitediag.CodeInvalidParameters)
	api.Post(t, "/brand", map[string]any{"url": target, "refresh": "yes"}).WantError(t, 400, sitediag.CodeInvalidParameters)
	api.Post(t, "/brand", map[string]any{"url": "http://169.254.169.254/"}).WantError(t, 403, sitediag.CodeTargetNotAllowed)
	api.Post(t, "/brand", map[string]any{"url": "http://gone.ledgerly.test/"}).WantError(t, 422, sitediag.CodeUnableToConnect)
}
