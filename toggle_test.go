package sitediag_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/sitediag/sitediag"
)

func TestToggle(t *testing.T) {
	for _, tc := range []struct {
		json      string
		want      sitediag.Toggle
		or, orNot bool
	}{
		{`{}`, 0, true, false},
		{`{"t": null}`, 0, true, false},
		{`{"t": true}`, sitediag.On, true, true},
		{`{"t": false}`, sitediag.Off, false, false},
	} {
		var v struct {
			T sitediag.Toggle `json:"t"`
		}
		if err := json.Unmarshal([]byte(tc.json), &v); err != nil {
			t.Fatalf("%s: %v", tc.json, err)
		}
		if v.T != tc.want || v.T.Or(true) != tc.or || v.T.Or(false) != tc.orNot {
			t.Errorf("%s: got %v (Or(true) %v, Or(false) %v), want %v (%v, %v)", tc.json, v.T, v.T.Or(true), v.T.Or(false), tc.want, tc.or, tc.orNot)
		}
	}
	var v struct {
		T sitediag.Toggle `json:"t"`
	}
	err := json.Unmarshal([]byte(`{"t": "yes"}`), &v)
	var typeErr *json.UnmarshalTypeError
	if !errors.As(err, &typeErr) || typeErr.Field != "t" || typeErr.Value != "string" {
		t.Errorf(`"yes": got %v, want a type error on t for a string`, err)
	}
}
