package prow

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// errNotObject reports a JSON document whose top level is not an object.
var errNotObject = errors.New("not a JSON object")

// decodeObject unmarshals the JSON object b into v. Artifacts are written by
// several generations of tools, so a field of an unexpected type is left at
// its zero value instead of failing the whole document; syntax errors and a
// top level that is not an object are still errors.
func decodeObject(b []byte, v any) error {
	trimmed := bytes.TrimLeft(b, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] != '{' {
		return errNotObject
	}
	err := json.Unmarshal(b, v)
	if _, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return nil
	}
	return err
}

// jsonString is a string field that also accepts a number or a boolean (as
// its text). Other JSON values, null included, leave it empty.
type jsonString string

// UnmarshalJSON implements json.Unmarshaler; it never fails.
func (s *jsonString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	switch c := b[0]; {
	case c == '"':
		var v string
		if json.Unmarshal(b, &v) == nil {
			*s = jsonString(v)
		}
	case c == '-' || (c >= '0' && c <= '9') || string(b) == "true" || string(b) == "false":
		*s = jsonString(b)
	}
	return nil
}

// jsonInt is an integer field that also accepts a float with no fraction or
// a string holding a number. Other values leave it zero.
type jsonInt int64

// UnmarshalJSON implements json.Unmarshaler; it never fails.
func (n *jsonInt) UnmarshalJSON(b []byte) error {
	var s jsonString
	_ = s.UnmarshalJSON(b)
	text := strings.TrimSpace(string(s))
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		*n = jsonInt(i)
		return nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return nil
	}
	*n = jsonInt(math.Trunc(f))
	return nil
}

// parseTime reads an RFC 3339 time as UTC; anything else is the zero time,
// because one malformed time should not cost the rest of the document.
func parseTime(s jsonString) time.Time {
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(string(s)))
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}
