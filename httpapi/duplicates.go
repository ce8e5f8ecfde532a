package httpapi

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// duplicateMember returns the path of the first member of body that its
// object names twice ("url", "margin.top", "headers[1].name"), or "".
// Names are compared case-insensitively, as encoding/json matches them to
// fields. A gateway in front of us may read the first of two members
// where we would read the last, so such a body is refused, not guessed
// at. body must be valid JSON; an error stops the scan with "".
func duplicateMember(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	path, _ := scanValue(dec, "")
	return path
}

// scanValue reads one value from dec; at is its path. It returns the
// path of a duplicated member inside it, or "".
func scanValue(dec *json.Decoder, at string) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	switch tok {
	case json.Delim('{'):
		return scanObject(dec, at)
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if dup, err := scanValue(dec, at+"["+strconv.Itoa(i)+"]"); dup != "" || err != nil {
				return dup, err
			}
		}
		_, err = dec.Token() // ]
		return "", err
	}
	return "", nil
}

func scanObject(dec *json.Decoder, at string) (string, error) {
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		name, _ := tok.(string)
		member := name
		if at != "" {
			member = at + "." + name
		}
		folded := strings.ToLower(name)
		if seen[folded] {
			return member, nil
		}
		seen[folded] = true
		if dup, err := scanValue(dec, member); dup != "" || err != nil {
			return dup, err
		}
	}
	_, err := dec.Token() // }
	return "", err
}
