package hostio

import (
	"bytes"
	"encoding/json"

	"github.com/rewind-dev/rewind/internal/jsonscan"
)

// flatField is where decodeFlat puts the value of one key: a string
// field, or a raw one.
type flatField struct {
	str *string
	raw *json.RawMessage
}

// decodeFlat fills fields from data in two quick passes (jsonscan.Valid,
// then jsonscan.Keys) rather than json.Unmarshal's two, which read it byte
// by byte: that matters for an event that carries a tool input of
// megabytes. It does so only for the events
// json.Unmarshal and checkFieldNames would read the same way and accept: a
// valid JSON object whose keys are all known, in their exact spelling, and
// given once, with a string or null for each string field. For any other
// input it sets nothing and reports false, and the caller reads data the
// slow way, which says what is wrong.
func decodeFlat(data []byte, fields map[string]flatField) bool {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' || !jsonscan.Valid(data) {
		return false
	}
	type set struct {
		f     flatField
		value []byte
	}
	var sets []set
	seen := make(map[string]bool, len(fields))
	ok := true
	jsonscan.Keys(data, func(k jsonscan.Key) bool {
		if k.Object != 0 {
			return true // inside a value
		}
		f, known := fields[k.Name]
		if !known || seen[k.Name] || f.str != nil && len(k.Value) > 0 && k.Value[0] != '"' && string(k.Value) != "null" {
			ok = false
			return false
		}
		seen[k.Name] = true
		sets = append(sets, set{f, k.Value})
		return true
	})
	if !ok {
		return false
	}
	for _, s := range sets {
		switch {
		case s.f.raw != nil:
			*s.f.raw = s.value
		case string(s.value) == "null":
			// json.Unmarshal leaves the field as it is.
		default:
			v, ok := jsonscan.String(s.value)
			if !ok {
				return false // not possible in valid JSON
			}
			*s.f.str = v
		}
	}
	return true
}
