package apitag

import (
	"errors"
	"math"
	"reflect"
	"strconv"
	"testing"
)

// toggle is a tri-state like sitediag.Toggle: 0 unset, 1 on, 2 off.
type toggle uint8

func (t *toggle) SetDefault(def string) error {
	if *t != 0 {
		return nil
	}
	b, err := strconv.ParseBool(def)
	if b {
		*t = 1
	} else {
		*t = 2
	}
	return err
}

type shared struct {
	Device string `json:"device" api:"enum=desktop|mobile,default=desktop"`
	Ads    toggle `json:"blockAds"`
}

type margin struct {
	Top *float64 `json:"top" api:"min=0,default=10"`
}

type timed struct {
	Timeout float64 `json:"timeout" api:"min=1"`
}

// TestZeroIsTheDefault: 0 and -0 are absent for a member whose range
// excludes 0; anything else below the range is refused.
func TestZeroIsTheDefault(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1)} {
		o := timed{Timeout: v}
		if err := Resolve(&o); err != nil || math.Signbit(o.Timeout) || o.Timeout != 0 {
			t.Errorf("%v: got %v, %v", v, o.Timeout, err)
		}
	}
	for _, v := range []float64{0.5, -1, math.Inf(-1), math.NaN()} {
		o := timed{Timeout: v}
		if err := Resolve(&o); err == nil {
			t.Errorf("%v was accepted", v)
		}
	}
}

type options struct {
	shared  `api:"blockAds=true"`
	Width   int      `json:"width" api:"min=320,max=3840"`
	Quality int      `json:"quality" api:"min=10,max=100,default=90"`
	Delay   float64  `json:"delay" api:"min=0,max=10"`
	Top     int      `json:"top" api:"enum=50|100"`
	Formats []string `json:"format" api:"enum=html|markdown,maxItems=2"`
	Margin  margin   `json:"margin"`
	Hidden  string   `json:"-"`
	Free    string   `json:"free"`
}

func TestFields(t *testing.T) {
	var names []string
	for _, f := range Fields(reflect.TypeFor[options]()) {
		names = append(names, f.Name)
	}
	want := []string{"device", "blockAds", "width", "quality", "delay", "top", "format", "margin", "free"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("got %v, want %v", names, want)
	}
	f := Fields(reflect.TypeFor[options]())[1]
	if f.Default != "true" {
		t.Errorf("embedded default: got %q, want true", f.Default)
	}
}

func TestResolveFillsDefaults(t *testing.T) {
	eachResolver(t, testResolveFillsDefaults)
}

func testResolveFillsDefaults(t *testing.T, resolve func(any) error) {
	o := options{Delay: math.Copysign(0, -1)}
	if err := resolve(&o); err != nil {
		t.Fatal(err)
	}
	if o.Device != "desktop" || o.Ads != 1 || o.Quality != 90 || o.Width != 0 || math.Signbit(o.Delay) || o.Margin.Top == nil || *o.Margin.Top != 10 {
		t.Errorf("got %+v", o)
	}
	o = options{shared: shared{Device: "MOBILE", Ads: 2}, Formats: []string{"Markdown"}, Top: 100}
	if err := resolve(&o); err != nil {
		t.Fatal(err)
	}
	if o.Device != "mobile" || o.Ads != 2 || o.Formats[0] != "markdown" {
		t.Errorf("got %+v", o)
	}
}

func TestResolveRefuses(t *testing.T) {
	eachResolver(t, testResolveRefuses)
}

func testResolveRefuses(t *testing.T, resolve func(any) error) {
	zero := 0.0
	neg := -1.0
	for _, tc := range []struct {
		o    options
		want Error
	}{
		{options{Width: 100}, Error{"width", "must be between 320 and 3840"}},
		{options{Delay: math.NaN()}, Error{"delay", "must be between 0 and 10"}},
		{options{Delay: 10.5}, Error{"delay", "must be between 0 and 10"}},
		{options{Top: 60}, Error{"top", "must be 50 or 100"}},
		{options{shared: shared{Device: "tablet"}}, Error{"device", "must be desktop or mobile"}},
		{options{Formats: []string{"pdf"}}, Error{"format", `"pdf" is not one of html or markdown`}},
		{options{Formats: []string{"html", "html", "html"}}, Error{"format", "must have at most 2 items"}},
		{options{Margin: margin{Top: &neg}}, Error{"margin.top", "must be at least 0"}},
	} {
		err := resolve(&tc.o)
		var e *Error
		if !errors.As(err, &e) || *e != tc.want {
			t.Errorf("%+v: got %v, want %v", tc.o, err, &tc.want)
		}
	}
	o := options{Margin: margin{Top: &zero}}
	if err := resolve(&o); err != nil || *o.Margin.Top != 0 {
		t.Errorf("an explicit 0 in range is kept: %v %v", err, *o.Margin.Top)
	}
}

// eachResolver runs test with the package's Resolve and with a Cache's,
// twice over the same Cache, so that the second run reads every type's
// fields from it.
func eachResolver(t *testing.T, test func(t *testing.T, resolve func(any) error)) {
	t.Run("Resolve", func(t *testing.T) { test(t, Resolve) })
	var c Cache
	t.Run("Cache", func(t *testing.T) { test(t, c.Resolve) })
	t.Run("Cache again", func(t *testing.T) { test(t, c.Resolve) })
}

// TestCacheReadsTagsOnce: a Cache hands out the fields it read the first
// time, nested structs' included, equal to Fields'.
func TestCacheReadsTagsOnce(t *testing.T) {
	var c Cache
	o := options{}
	if err := c.Resolve(&o); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[options](), reflect.TypeFor[margin]()} {
		first, again := c.Fields(typ), c.Fields(typ)
		if !reflect.DeepEqual(first, Fields(typ)) {
			t.Errorf("%v: cached fields differ from Fields", typ)
		}
		if &first[0] != &again[0] {
			t.Errorf("%v: fields read again", typ)
		}
		if _, ok := c.fields.Load(typ); !ok {
			t.Errorf("%v: not cached by Resolve", typ)
		}
	}
}
