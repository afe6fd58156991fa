package hostio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// unmarshalExact decodes the JSON object data into the struct v, reading
// each field from the key of its json tag in exactly that spelling.
// encoding/json also fills a field from a key in another case, and from
// the last of several: {"tool_name": "Read", "Tool_Name": "Bash"} would be
// read as Bash while the host reads Read. A key that occurs twice, in any
// case, is a *MalformedError; keys of other spellings are ignored, as the
// host ignores them. v's fields are strings or json.RawMessage.
func unmarshalExact(data []byte, v any) error {
	// encoding/json first checks the whole input and says what is wrong
	// with it, in its own terms: invalid JSON, not an object, trailing data.
	if err := json.Unmarshal(data, new(map[string]json.RawMessage)); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return err
	}
	rv := reflect.ValueOf(v).Elem()
	fields := map[string]int{}
	for i := range rv.NumField() {
		name, _, _ := strings.Cut(rv.Type().Field(i).Tag.Get("json"), ",")
		fields[name] = i
	}
	seen := map[string]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		fold := strings.ToLower(strings.ToUpper(key))
		if prev, ok := seen[fold]; ok {
			if prev == key {
				return &MalformedError{Reason: fmt.Sprintf("the key %q occurs twice", shorten(key))}
			}
			return &MalformedError{Reason: fmt.Sprintf("the keys %q and %q differ only in case", shorten(prev), shorten(key))}
		}
		seen[fold] = key
		i, ok := fields[key]
		if !ok {
			continue
		}
		f := rv.Field(i)
		if f.Type() == reflect.TypeFor[json.RawMessage]() {
			f.SetBytes(raw)
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
				continue
			}
			return &MalformedError{Reason: fmt.Sprintf("%s is %s, not a string", key, article(jsonKind(raw)))}
		}
		f.SetString(s)
	}
	return nil
}

// shorten bounds a key quoted in an error: keys come from the input.
func shorten(s string) string {
	if len(s) > maxNameInError {
		return s[:maxNameInError] + "..."
	}
	return s
}
