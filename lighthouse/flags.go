package lighthouse

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// FlagError names a parameter that is not an allowed audit flag, or
// whose value is not valid.
type FlagError struct {
	Flag    string
	Problem string
}

func (e *FlagError) Error() string { return "lighthouse: " + e.Flag + ": " + e.Problem }

// flagKind is how an allowed flag's value is read.
type flagKind int

const (
	listFlag   flagKind = iota // comma-separated, repeatable: appended
	stringFlag                 // one value
	numberFlag                 // a number, under a parent object
	boolFlag                   // true/false, under a parent object
)

// allowed are the audit flags parameters may set, by CLI name, with the
// Node API name they become. Nothing that names a file, a port, a
// plugin, a config, an output or a Chrome flag is here.
var allowed = map[string]struct {
	name string
	kind flagKind
}{
	"--only-categories":      {"onlyCategories", listFlag},
	"--only-audits":          {"onlyAudits", listFlag},
	"--skip-audits":          {"skipAudits", listFlag},
	"--blocked-url-patterns": {"blockedUrlPatterns", listFlag},
	"--preset":               {"preset", stringFlag},
	"--form-factor":          {"formFactor", stringFlag},
	"--throttling-method":    {"throttlingMethod", stringFlag},
	"--locale":               {"locale", stringFlag},
	"--emulated-user-agent":  {"emulatedUserAgent", stringFlag},
	"--max-wait-for-load":    {"maxWaitForLoad", numberFlag},
}

// nested are the flags of the screenEmulation and throttling objects.
var nested = map[string]flagKind{
	"screenEmulation.mobile": boolFlag, "screenEmulation.disabled": boolFlag,
	"screenEmulation.width": numberFlag, "screenEmulation.height": numberFlag, "screenEmulation.deviceScaleFactor": numberFlag,
	"throttling.rttMs": numberFlag, "throttling.throughputKbps": numberFlag, "throttling.requestLatencyMs": numberFlag,
	"throttling.downloadThroughputKbps": numberFlag, "throttling.uploadThroughputKbps": numberFlag,
	"throttling.cpuSlowdownMultiplier": numberFlag,
}

// enums are the values the string flags take.
var enums = map[string][]string{
	"--preset":            {"desktop", "perf", "experimental"},
	"--form-factor":       {"mobile", "desktop"},
	"--throttling-method": {"devtools", "simulate", "provided"},
}

// Flags are parameters parsed into Lighthouse's Node API flags. Preset
// is the config preset ("" for the default mobile one).
type Flags struct {
	API    map[string]any
	Preset string
}

// ParseFlags reads CLI-style parameters ("--only-categories=seo,performance",
// "--screenEmulation.width=1024") against the allow list; maxWait is the
// most --max-wait-for-load may ask for.
func ParseFlags(params []string, maxWait time.Duration) (*Flags, error) {
	f := &Flags{API: map[string]any{}}
	for _, p := range params {
		p = strings.TrimSpace(p)
		name, value, hasValue := strings.Cut(p, "=")
		if !strings.HasPrefix(name, "--") {
			return nil, &FlagError{p, "is not a flag (--name=value)"}
		}
		if !printable(value) {
			return nil, &FlagError{name, "must be UTF-8 text without control characters"}
		}
		if kind, ok := nested[name[2:]]; ok {
			if err := setNested(f.API, name[2:], kind, value, hasValue); err != nil {
				return nil, &FlagError{name, err.Error()}
			}
			continue
		}
		a, ok := allowed[name]
		if !ok {
			return nil, &FlagError{name, "is not an allowed audit flag"}
		}
		if !hasValue || value == "" {
			return nil, &FlagError{name, "needs a value (" + name + "=…)"}
		}
		switch a.kind {
		case listFlag:
			list, _ := f.API[a.name].([]string)
			for _, v := range strings.Split(value, ",") {
				if v = strings.TrimSpace(v); v != "" {
					list = append(list, v)
				}
			}
			f.API[a.name] = list
		case stringFlag:
			if values, ok := enums[name]; ok && !contains(values, value) {
				return nil, &FlagError{name, "must be one of " + strings.Join(values, ", ")}
			}
			if name == "--locale" && !isLanguageTag(value) {
				return nil, &FlagError{name, "must be a BCP 47 language tag (en, de, pt-BR, es-419)"}
			}
			if name == "--preset" {
				f.Preset = value
				continue
			}
			f.API[a.name] = value
		case numberFlag:
			ms, err := parseFinite(value)
			if err != nil || ms <= 0 || ms > float64(maxWait.Milliseconds()) {
				return nil, &FlagError{name, fmt.Sprintf("must be a number of milliseconds up to %d", maxWait.Milliseconds())}
			}
			f.API[a.name] = ms
		}
	}
	return f, nil
}

// setNested sets screenEmulation.x or throttling.x.
func setNested(api map[string]any, key string, kind flagKind, value string, hasValue bool) error {
	parent, child, _ := strings.Cut(key, ".")
	obj, _ := api[parent].(map[string]any)
	if obj == nil {
		obj = map[string]any{}
		api[parent] = obj
	}
	switch kind {
	case boolFlag:
		switch {
		case !hasValue || value == "true":
			obj[child] = true
		case value == "false":
			obj[child] = false
		default:
			return fmt.Errorf("must be true or false")
		}
	case numberFlag:
		n, err := parseFinite(value)
		if !hasValue || err != nil || n < 0 || n > 100000 {
			return fmt.Errorf("must be a number from 0 to 100000")
		}
		obj[child] = n
	}
	return nil
}

// parseFinite reads a number, refusing NaN and the infinities, which
// no range check catches and JSON cannot carry.
func parseFinite(s string) (float64, error) {
	n, err := strconv.ParseFloat(s, 64)
	if err == nil && (math.IsNaN(n) || math.IsInf(n, 0)) {
		return 0, fmt.Errorf("%q is not a finite number", s)
	}
	return n, err
}

// printable reports whether s is UTF-8 without control characters
// (CR, LF, NUL, DEL, C1): what becomes a header value, a URL pattern or
// a file name in Lighthouse must not carry them.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// isLanguageTag reports whether s has the syntax of a BCP 47 language
// tag: a 2–3 letter language, then subtags of 1–8 letters or digits
// joined by hyphens. No slash, dot or other path character passes.
func isLanguageTag(s string) bool {
	subtags := strings.Split(s, "-")
	if len(s) > 35 || len(subtags[0]) < 2 || len(subtags[0]) > 3 || !allOf(subtags[0], isASCIILetter) {
		return false
	}
	for _, sub := range subtags[1:] {
		if len(sub) < 1 || len(sub) > 8 || !allOf(sub, func(r rune) bool { return isASCIILetter(r) || '0' <= r && r <= '9' }) {
			return false
		}
	}
	return true
}

func isASCIILetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

func allOf(s string, ok func(rune) bool) bool {
	for _, r := range s {
		if !ok(r) {
			return false
		}
	}
	return true
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
