package main

import (
	"context"
	"flag"
	"io"
	"reflect"
	"testing"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/browser"
	"github.com/sitediag/sitediag/internal/apitag"
)

// TestEveryOptionIsAFlag walks the options struct of every command and
// fails when a member (nested ones included) has no flag of its kebab
// name, and walks the Client's methods and fails when an operation has
// no command.
func TestEveryOptionIsAFlag(t *testing.T) {
	optionTypes := map[reflect.Type]bool{}
	for _, cmd := range commands() {
		fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
		opts, _ := cmd.options()
		docs := memberDocs(cmd.path)
		optionFlags(fs, opts, docs)
		optionTypes[reflect.TypeOf(opts).Elem()] = true
		var walk func(t reflect.Type, prefix string)
		walk = func(typ reflect.Type, prefix string) {
			for _, f := range apitag.Fields(typ) {
				if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeFor[sitediag.Toggle]() {
					walk(f.Type, prefix+f.Name+".")
					continue
				}
				if fs.Lookup(kebab(prefix+f.Name)) == nil {
					t.Errorf("%s: option %s%s has no flag --%s", cmd.name, prefix, f.Name, kebab(prefix+f.Name))
				}
				if docs[prefix+f.Name] == "" {
					t.Errorf("%s: option %s%s has no help text in %s's description", cmd.name, prefix, f.Name, cmd.path)
				}
			}
		}
		walk(reflect.TypeOf(opts).Elem(), "")
	}
	ctx, str := reflect.TypeFor[context.Context](), reflect.TypeFor[string]()
	client := reflect.TypeFor[*sitediag.Client]()
	for i := range client.NumMethod() {
		m := client.Method(i)
		in := m.Type
		if in.NumIn() != 4 || in.In(1) != ctx || in.In(2) != str || in.In(3).Kind() != reflect.Struct {
			continue
		}
		if !optionTypes[in.In(3)] {
			t.Errorf("operation %s has no command", m.Name)
		}
	}
}

func TestKebab(t *testing.T) {
	for in, want := range map[string]string{
		"viewportWidth": "viewport-width", "renderJS": "render-js", "margin.top": "margin-top",
		"fallbackToFullPage": "fallback-to-full-page", "url": "url", "HTTPHeader": "http-header",
	} {
		if got := kebab(in); got != want {
			t.Errorf("kebab(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFlagsReadAsTheAPI: a flag's text is read as the member's JSON, so
// the options are what the same API body gives.
func TestFlagsReadAsTheAPI(t *testing.T) {
	var o sitediag.ScreenshotOptions
	fs := flag.NewFlagSet("screenshot", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	optionFlags(fs, &o, nil)
	err := fs.Parse([]string{"--viewport-width", "1024", "--type", "jpeg", "--full-page", "--capture-beyond-viewport=false", "--delay", "1.5"})
	if err != nil {
		t.Fatal(err)
	}
	want := sitediag.ScreenshotOptions{ViewportWidth: 1024, Delay: 1.5,
		ShotOptions: browser.ShotOptions{Type: browser.JPEG, FullPage: sitediag.On, CaptureBeyondViewport: sitediag.Off}}
	if o != want {
		t.Errorf("got %+v, want %+v", o, want)
	}
	var w sitediag.WebScrapeOptions
	fs = flag.NewFlagSet("webscrape", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	optionFlags(fs, &w, nil)
	if err := fs.Parse([]string{"--format", "markdown,text", "--extraction-schema", `{"name":"x","baseSelector":"li","fields":[{"name":"n","selector":"b"}]}`}); err != nil {
		t.Fatal(err)
	}
	if len(w.Format) != 2 || w.Format[0] != "markdown" || w.ExtractionSchema == nil || w.ExtractionSchema.BaseSelector != "li" {
		t.Errorf("got %+v", w)
	}
	if err := fs.Parse([]string{"--wait-time", "soon"}); err == nil {
		t.Error("--wait-time soon was read")
	}
}
