package openapigen

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sitediag/sitediag/internal/apitag"
)

func TestConstrain(t *testing.T) {
	cases := []struct {
		tag    string
		schema *Schema
		want   string
	}{
		{"min=320,max=3840", &Schema{Type: "integer"},
			`{"type":"integer","anyOf":[{"type":"integer","minimum":320,"maximum":3840},{"type":"integer","description":"the default, as when absent","const":0}]}`},
		{"min=0,max=10", &Schema{Type: "number"}, `{"type":"number","minimum":0,"maximum":10}`},
		{"enum=50|100,default=100", &Schema{Type: "integer"},
			`{"type":"integer","default":100,"anyOf":[{"type":"integer","enum":[50,100]},{"type":"integer","description":"the default, as when absent","const":0}]}`},
		{"enum=0|5", &Schema{Type: "integer"}, `{"type":"integer","enum":[0,5]}`},
		{"enum=png|jpeg,default=png", &Schema{Type: "string"}, `{"type":"string","enum":["png","jpeg"],"default":"png"}`},
		{"default=true", &Schema{Type: "boolean"}, `{"type":"boolean","default":true}`},
		{"enum=A|MX", &Schema{Type: "array", Items: &Schema{Type: "string"}}, `{"type":"array","items":{"type":"string","enum":["A","MX"]}}`},
	}
	for _, c := range cases {
		con, err := apitag.Parse(c.tag)
		if err != nil {
			t.Fatalf("%s: %v", c.tag, err)
		}
		p, err := (&Schemas{}).constrain(c.schema, &con)
		if err != nil {
			t.Fatalf("%s: %v", c.tag, err)
		}
		if got, _ := json.Marshal(p); string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.tag, got, c.want)
		}
	}
	for _, bad := range []string{"minimum=1", "min=x", "enum"} {
		if _, err := apitag.Parse(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestNullableNeverInEnum(t *testing.T) {
	cases := []struct {
		schema *Schema
		want   string
	}{
		{&Schema{Type: "string"}, `{"type":["string","null"]}`},
		{&Schema{Type: "string", Enum: []any{"a"}, Default: "a"}, `{"default":"a","anyOf":[{"type":"string","enum":["a"]},{"type":"null"}]}`},
		{ref("X"), `{"anyOf":[{"$ref":"#/components/schemas/X"},{"type":"null"}]}`},
		{&Schema{}, `{}`},
	}
	for _, c := range cases {
		if got, _ := json.Marshal(nullable(c.schema)); string(got) != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
	}
}

// TestFieldDocs reads doc comments from a package's source, inline
// structs' fields included, and makes descriptions of them.
func TestFieldDocs(t *testing.T) {
	dir := t.TempDir()
	src := `package p

// T is a type.
type T struct {
	// Width is the width, in pixels.
	// Zero means 1920.
	Width int
	Margin struct {
		// Top is the top margin.
		Top float64
	}
	Plain string // Plain has a line comment.
}
`
	if err := os.MkdirAll(filepath.Join(dir, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p", "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	d := newFieldDocs(dir, "example.test/m")
	for path, want := range map[string]string{
		"T.Width":      "Width is the width, in pixels.\nZero means 1920.\n",
		"T.Margin.Top": "Top is the top margin.\n",
		"T.Plain":      "Plain has a line comment.\n",
	} {
		got, err := d.of("example.test/m/p", path)
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", path, got, err, want)
		}
	}
	if got, err := d.of("time", "Time.wall"); got != "" || err != nil {
		t.Errorf("a package outside the module: %q, %v", got, err)
	}
	f := reflect.StructField{Name: "Width"}
	if got := description("Width is the width, in pixels.\nZero means 1920.\n\nSecond paragraph.", f, "width"); got != "width is the width, in pixels. Zero means 1920.\n\nSecond paragraph." {
		t.Errorf("description: %q", got)
	}
	if got := description("Widths are many.", f, "width"); got != "Widths are many." {
		t.Errorf("a longer word kept: %q", got)
	}
}

// TestComponentClash names each struct after its type and refuses two
// types of one name that the rename table does not tell apart.
func TestComponentClash(t *testing.T) {
	type Hop struct{ A int }
	s := &Schemas{docs: newFieldDocs(t.TempDir(), "example.test/m"), components: map[string]*Schema{},
		names: map[componentKey]string{}, owners: map[string]reflect.Type{}}
	if got := s.component(reflect.TypeFor[Hop](), false); got != "Hop" {
		t.Errorf("component %q, want Hop", got)
	}
	if got := s.component(reflect.TypeFor[Hop](), true); got != "HopInput" {
		t.Errorf("request form %q, want HopInput", got)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "rename table") {
			t.Errorf("a clash: %v, want a panic naming the rename table", r)
		}
	}()
	s.component(reflect.TypeFor[hop](), false)
}

// hop is another type named Hop, as the component names go.
type hop struct{ C int }

// page and shot are an embedded options struct and an operation's
// request body that sets its defaults.
type page struct {
	BlockAds   *bool  `json:"blockAds"`
	Device     string `json:"device" api:"enum=desktop|mobile,default=desktop"`
	HideCookie *bool  `json:"hideCookie"`
}

type shot struct {
	URL  string `json:"url"`
	page `api:"blockAds=true,hideCookie=false"`
	Kind string `json:"type" api:"enum=png|jpeg,default=png"`
}

// TestEmbeddedDefaults gives an embedded struct's members the defaults
// the embedding field's api tag sets, and makes url required.
func TestEmbeddedDefaults(t *testing.T) {
	s := &Schemas{docs: newFieldDocs("../..", "github.com/sitediag/sitediag"), components: map[string]*Schema{},
		names: map[componentKey]string{}, owners: map[string]reflect.Type{}}
	body := requireURL(s, s.of(reflect.TypeFor[shot](), true))
	got, _ := json.Marshal(s.components[strings.TrimPrefix(body.Ref, "#/components/schemas/")])
	want := `{"type":"object","properties":{` +
		`"blockAds":{"type":["boolean","null"],"default":true},` +
		`"device":{"default":"desktop","anyOf":[{"type":"string","enum":["desktop","mobile"]},{"type":"null"}]},` +
		`"hideCookie":{"type":["boolean","null"],"default":false},` +
		`"type":{"default":"png","anyOf":[{"type":"string","enum":["png","jpeg"]},{"type":"null"}]},` +
		`"url":{"type":"string"}},"required":["url"],"additionalProperties":false}`
	if string(got) != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}
