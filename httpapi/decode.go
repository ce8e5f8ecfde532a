package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/sitediag/sitediag"
	"github.com/sitediag/sitediag/internal/jsontext"
)

// decode reads r's body into v strictly: JSON only, at most 64 KiB, no
// unknown fields, no member twice, every type right. An empty body is an
// empty object.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return sitediag.NewError(CodeUnsupportedMediaType, nil, "Content-Type must be application/json")
	}
	if r.ContentLength > maxBodyBytes {
		return tooLarge()
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge()
		}
		return sitediag.InvalidParameter("body", "could not be read")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if u, ok := v.(json.Unmarshaler); ok && json.Valid(body) {
		// One value and nothing else: what the decoder below would hand
		// u, without its buffering.
		if err := u.UnmarshalJSON(body); err != nil {
			return decodeError(err)
		}
	} else {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			return decodeError(err)
		}
		if dec.More() {
			return sitediag.InvalidParameter("body", "must hold one JSON object")
		}
	}
	if member := jsontext.DuplicateMember(body); member != "" {
		return sitediag.InvalidParameter(member, "appears more than once")
	}
	return nil
}

func tooLarge() error {
	return sitediag.NewError(CodePayloadTooLarge, nil, "body is larger than %d bytes", maxBodyBytes)
}

// decodeError names the field a JSON error is about.
func decodeError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := jsonPath(typeErr.Field)
		if field == "" {
			return sitediag.InvalidParameter("body", "must be a JSON object")
		}
		return sitediag.InvalidParameter(field, "must be "+jsonType(typeErr.Type.Kind())+", not "+typeErr.Value)
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return sitediag.InvalidParameter("body", "is not valid JSON")
	// encoding/json has no typed error for DisallowUnknownFields; its
	// text is documented and stable, so this is the one string match.
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return sitediag.InvalidParameter(field, "is not a known field")
	}
	return sitediag.InvalidParameter("body", "is not valid JSON")
}

// jsonPath drops from a type error's field path the names of embedded
// structs (sitediag.PageOptions, …), which are Go's, not the API's: every
// member of the API is in lower camel case.
func jsonPath(field string) string {
	parts := strings.Split(field, ".")
	kept := parts[:0]
	for _, p := range parts {
		if p != "" && !unicode.IsUpper(rune(p[0])) {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ".")
}

// jsonType names a Go kind the way a JSON caller thinks of it.
func jsonType(kind reflect.Kind) string {
	switch kind {
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a value of the documented type"
}

// request is an operation's body: the url and the operation's options,
// whose members are the body's other members.
type request[O any] struct {
	URL     string
	Options O
}

// UnmarshalJSON reads url (matched in any case, as encoding/json
// matches members) and decodes the other members into the options
// strictly: an unknown member is an error. The options' members are
// decoded in the order of their names, the last of a name given twice
// counting, so that of several wrong members the one named does not
// depend on the order the caller wrote them in.
func (r *request[O]) UnmarshalJSON(b []byte) error {
	var buf [16]jsontext.Member
	members, ok := jsontext.Members(b, buf[:0])
	if !ok {
		return decodeStrictly(b, &r.Options) // null, or the error of a body that is no object
	}
	options := members[:0] // filtered in place: each kept member is one already read
	for _, m := range members {
		if !bytes.EqualFold(m.Name, []byte("url")) {
			options = slices.DeleteFunc(options, func(o jsontext.Member) bool { return bytes.Equal(o.Name, m.Name) })
			options = append(options, m)
		} else if err := json.Unmarshal(m.Value, &r.URL); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				te.Field = "url" // read apart from the body: name it as the body's member
			}
			return err
		}
	}
	if len(options) == 0 {
		return nil // the url alone: the options keep their zero value, as decoding {} leaves them
	}
	slices.SortFunc(options, func(a, b jsontext.Member) int { return bytes.Compare(a.Name, b.Name) })
	size := 2
	for _, m := range options {
		size += len(m.Text) + 1
	}
	rest := append(make([]byte, 0, size), '{')
	for i, m := range options {
		if i > 0 {
			rest = append(rest, ',')
		}
		rest = append(rest, m.Text...)
	}
	return decodeStrictly(append(rest, '}'), &r.Options)
}

// decodeStrictly decodes b into v, refusing members v has no field for.
func decodeStrictly(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
