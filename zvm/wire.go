package zvm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The wire types below decode what a ZVM really sends. encoding/json matches
// object keys to struct fields case-insensitively, which covers the
// PascalCase a ZVM writes and the camelCase its spec shows; the named types
// here cover the value shapes that vary: timestamps in two notations, and
// enums sent as numbers, numeric strings or names.

// wireTime is a timestamp in ISO-8601 (with or without zone and fraction) or
// the .NET "/Date(ms[+hhmm])/" notation. A missing zone means UTC, which is
// what a ZVM writes.
type wireTime struct{ time.Time }

var isoLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
}

func (t *wireTime) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("timestamp %s: not a string", b)
	}
	v, err := parseTime(s)
	if err != nil {
		return err
	}
	t.Time = v
	return nil
}

// parseTime parses a timestamp as a ZVM writes it; "" is the zero time.
func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if rest, ok := strings.CutPrefix(s, "/Date("); ok {
		return parseDotNetDate(s, rest)
	}
	for _, layout := range isoLayouts {
		if v, err := time.Parse(layout, s); err == nil {
			return v, nil
		}
	}
	return time.Time{}, fmt.Errorf("timestamp %q: not ISO-8601 or /Date(ms)/", s)
}

// parseDotNetDate parses the body of "/Date(1700000000000+0100)/". The
// milliseconds are UTC; the offset only says in which zone to show them.
func parseDotNetDate(orig, rest string) (time.Time, error) {
	body, ok := strings.CutSuffix(rest, ")/")
	if !ok {
		return time.Time{}, fmt.Errorf("timestamp %q: unterminated /Date(", orig)
	}
	ms, zone := body, ""
	if i := strings.LastIndexAny(body, "+-"); i > 0 {
		ms, zone = body[:i], body[i:]
	}
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp %q: bad milliseconds", orig)
	}
	v := time.UnixMilli(n).UTC()
	if zone != "" {
		if len(zone) != 5 {
			return time.Time{}, fmt.Errorf("timestamp %q: bad zone offset", orig)
		}
		h, err1 := strconv.Atoi(zone[1:3])
		m, err2 := strconv.Atoi(zone[3:5])
		if err1 != nil || err2 != nil {
			return time.Time{}, fmt.Errorf("timestamp %q: bad zone offset", orig)
		}
		off := h*3600 + m*60
		if zone[0] == '-' {
			off = -off
		}
		if off != 0 {
			v = v.In(time.FixedZone("", off))
		}
	}
	return v, nil
}

// wireEnum is an enum value sent as a number, a numeric string, or a name
// that names lists (index = value).
type wireEnum struct {
	n   int
	set bool
}

func (e *wireEnum) decode(b []byte, what string, names []string) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err == nil {
		v, err := strconv.Atoi(n.String())
		if err != nil {
			return fmt.Errorf("%s %s: not an integer", what, b)
		}
		e.n, e.set = v, true
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%s %s: neither a number nor a string", what, b)
	}
	if v, err := strconv.Atoi(s); err == nil {
		e.n, e.set = v, true
		return nil
	}
	for i, name := range names {
		if name != "" && strings.EqualFold(name, s) {
			e.n, e.set = i, true
			return nil
		}
	}
	return fmt.Errorf("%s %q: unknown name", what, s)
}

// wireString is a string that a ZVM may also send as a number (task types
// were integers in older versions).
type wireString string

func (w *wireString) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*w = wireString(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("%s: neither a string nor a number", b)
	}
	*w = wireString(n.String())
	return nil
}

// wireID is an identifier field: a string, or a ResourceLink object whose
// "identifier" it takes (the spec's "link" and "protectedSite" fields).
type wireID string

func (w *wireID) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var s wireString
	if err := s.UnmarshalJSON(b); err == nil {
		*w = wireID(s)
		return nil
	}
	var link struct{ Identifier string }
	if err := json.Unmarshal(b, &link); err != nil {
		return fmt.Errorf("identifier %s: neither a string nor a link", b)
	}
	*w = wireID(link.Identifier)
	return nil
}

// lookupFold returns the value of key in m, matching case-insensitively.
func lookupFold(m map[string]json.RawMessage, key string) (json.RawMessage, bool) {
	if v, ok := m[key]; ok {
		return v, true
	}
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}
