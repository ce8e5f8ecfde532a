package jsontext

import (
	"testing"
)

// DuplicateMember names the path of a member named twice, in objects
// inside arrays too, comparing names unescaped and in lower case.
func TestDuplicateMember(t *testing.T) {
	for body, want := range map[string]string{
		`{"a":1,"b":{"c":[1,2]},"d":"x"}`:                  "",
		`[{"a":1},{"b":[{"c":1,"C":2}]}]`:                  "[1].b[0].C",
		`{"a":{"b":[[],[{"x":"\"}","X":1}]]}}`:             "a.b[1][0].X",
		`{"\u00c9t\u00e9":1,"été":2}`:                      "été",
		`{"ÉTÉ":1,"été":2}`:                                "été",
		`{"a":"{\"a\":1,\"a\":2}","b":[true,null,-1.5e3]}`: "",
		`  {"a":1}  {"a":1,"a":2}`:                         "",
		`null`:                                             "",
	} {
		if got := DuplicateMember([]byte(body)); got != want {
			t.Errorf("%s: got %q, want %q", body, got, want)
		}
	}
}

// Members are an object's members in the order written, names
// unescaped, text and value as written.
func TestMembers(t *testing.T) {
	ms, ok := Members([]byte(` { "url" : "x", "a\u0062": [1, {"c": 2}] ,"d":null}`), nil)
	if !ok || len(ms) != 3 {
		t.Fatalf("got %d members (object %v), want 3", len(ms), ok)
	}
	for i, want := range []struct{ name, text, value string }{
		{"url", `"url" : "x"`, `"x"`},
		{"ab", `"a\u0062": [1, {"c": 2}]`, `[1, {"c": 2}]`},
		{"d", `"d":null`, `null`},
	} {
		if m := ms[i]; string(m.Name) != want.name || string(m.Text) != want.text || string(m.Value) != want.value {
			t.Errorf("member %d: got %q %q %q, want %q %q %q", i, m.Name, m.Text, m.Value, want.name, want.text, want.value)
		}
	}
	for _, body := range []string{`null`, `[{"a":1}]`, `"{}"`} {
		if ms, ok := Members([]byte(body), nil); ok || len(ms) != 0 {
			t.Errorf("%s: got %d members, object %v; want none, not an object", body, len(ms), ok)
		}
	}
	if ms, ok := Members([]byte(`{}`), nil); !ok || len(ms) != 0 {
		t.Errorf("{}: got %d members, object %v; want none, an object", len(ms), ok)
	}
}
