package lighthouse_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/sitediag/sitediag/lighthouse"
)

// hostileParameters are values that reached Lighthouse unchecked (#30):
// NaN and the infinities pass a range check and fail json.Marshal,
// control characters break DevTools' header, a path-like locale is not a
// locale, and a huge number overflowed the duration the wait was
// checked as.
var hostileParameters = []string{
	"--throttling.rttMs=NaN", "--throttling.cpuSlowdownMultiplier=nan", "--screenEmulation.width=+Inf",
	"--screenEmulation.deviceScaleFactor=-Inf", "--throttling.throughputKbps=Infinity", "--max-wait-for-load=NaN",
	"--max-wait-for-load=Inf", "--max-wait-for-load=1e300",
	"--emulated-user-agent=x\r\nX-Injected: 1", "--emulated-user-agent=x\nX-Injected: 1", "--emulated-user-agent=a\x00b",
	"--emulated-user-agent=a\x7fb", "--emulated-user-agent=a\u0085b", "--emulated-user-agent=a\xffb",
	"--only-categories=seo\r\nX: 1", "--blocked-url-patterns=*.js\x00",
	"--locale=../../../../etc/passwd", "--locale=/etc/passwd", "--locale=de/../../x", "--locale=en.json",
	"--locale=en_US", "--locale=e", "--locale=en-", "--locale=en--US", "--locale=" + strings.Repeat("a-", 30) + "a",
}

func TestParseFlagsHostile(t *testing.T) {
	for _, bad := range hostileParameters {
		_, err := lighthouse.ParseFlags([]string{bad}, time.Minute)
		var fe *lighthouse.FlagError
		if !errors.As(err, &fe) || !strings.HasPrefix(bad, fe.Flag+"=") {
			t.Errorf("%q: got %v, want a FlagError naming the flag", bad, err)
		}
	}
	for _, good := range []string{"--locale=en", "--locale=pt-BR", "--locale=es-419", "--locale=zh-Hans-CN", "--locale=en-XL",
		"--emulated-user-agent=Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0 Safari/537.36 — ünïcode", "--throttling.rttMs=0",
		"--throttling.rttMs=1e3", "--max-wait-for-load=60000"} {
		if _, err := lighthouse.ParseFlags([]string{good}, time.Minute); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
}

// FuzzParseFlags feeds arbitrary parameters to ParseFlags: it never
// panics, what it refuses is a FlagError naming the parameter's flag,
// and what it accepts marshals to JSON (no NaN, no infinity) with no
// control character in any value and a language tag as the locale.
// The seeds run in every go test; `go test -fuzz FuzzParseFlags
// ./lighthouse` explores further.
func FuzzParseFlags(f *testing.F) {
	for _, seed := range append(hostileParameters, "--only-categories=performance,seo", "--screenEmulation.mobile",
		"--screenEmulation.width=1024", "--throttling.rttMs=40", "--preset=desktop", "--locale=de",
		"--emulated-user-agent=Test/1.0", "--max-wait-for-load=30000", "--throttling.rttMs=0x1p4", "--view", "seo") {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, param string) {
		flags, err := lighthouse.ParseFlags([]string{param}, time.Minute)
		if err != nil {
			var fe *lighthouse.FlagError
			if !errors.As(err, &fe) || !strings.HasPrefix(strings.TrimSpace(param), fe.Flag) {
				t.Fatalf("ParseFlags(%q) = %v, want a FlagError naming its flag", param, err)
			}
			return
		}
		b, err := json.Marshal(flags.API)
		if err != nil {
			t.Fatalf("ParseFlags(%q) accepted %v, which does not marshal: %v", param, flags.API, err)
		}
		var api map[string]any
		if err := json.Unmarshal(b, &api); err != nil {
			t.Fatal(err)
		}
		checkValues(t, param, api)
		if locale, ok := api["locale"].(string); ok && (strings.ContainsAny(locale, "/.\\_") || len(locale) < 2) {
			t.Fatalf("ParseFlags(%q) accepted locale %q", param, locale)
		}
		if strings.IndexFunc(flags.Preset, unicode.IsControl) >= 0 {
			t.Fatalf("ParseFlags(%q) accepted preset %q", param, flags.Preset)
		}
	})
}

// checkValues fails on any string in v with a control character.
func checkValues(t *testing.T, param string, v any) {
	t.Helper()
	switch v := v.(type) {
	case string:
		if strings.IndexFunc(v, unicode.IsControl) >= 0 {
			t.Fatalf("ParseFlags(%q) accepted %q", param, v)
		}
	case []any:
		for _, x := range v {
			checkValues(t, param, x)
		}
	case map[string]any:
		for _, x := range v {
			checkValues(t, param, x)
		}
	}
}
