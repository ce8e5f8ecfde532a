package option_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/sitediag/sitediag/option"
)

func TestToggle(t *testing.T) {
	for _, tc := range []struct {
		json string
		want option.Toggle
		str  string
	}{
		{`{}`, 0, ""},
		{`{"t": null}`, 0, ""},
		{`{"t": true}`, option.On, "true"},
		{`{"t": false}`, option.Off, "false"},
	} {
		var v struct {
			T option.Toggle `json:"t"`
		}
		if err := json.Unmarshal([]byte(tc.json), &v); err != nil {
			t.Fatalf("%s: %v", tc.json, err)
		}
		if v.T != tc.want || v.T.String() != tc.str || v.T.Bool() != (tc.want == option.On) {
			t.Errorf("%s: got %v (%q, Bool %v), want %v (%q)", tc.json, v.T, v.T.String(), v.T.Bool(), tc.want, tc.str)
		}
	}
	var v struct {
		T option.Toggle `json:"t"`
	}
	err := json.Unmarshal([]byte(`{"t": "yes"}`), &v)
	var typeErr *json.UnmarshalTypeError
	if !errors.As(err, &typeErr) || typeErr.Field != "t" || typeErr.Value != "string" {
		t.Errorf(`"yes": got %v, want a type error on t for a string`, err)
	}
}
