package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// object is a JSON object that keeps its members in order, so that a
// settings file is written back in the order its author chose. Values are
// kept as they were written, numbers and escapes included.
type object struct {
	members []member
}

type member struct {
	key   string
	value json.RawMessage
}

// ParseError reports a settings file that is not a JSON object.
type ParseError struct {
	File string
	Line int // 0 when the problem is not at one place
	Err  error
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// parseObject parses data, the content of file, as a JSON object. Empty
// data (a file of white space) is an empty object.
func parseObject(file string, data []byte) (*object, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &object{}, nil
	}
	o, err := decodeObject(data)
	if err != nil {
		perr := &ParseError{File: file, Err: err}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			perr.Line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		}
		return nil, perr
	}
	return o, nil
}

// decodeObject decodes raw, which must hold one JSON object and nothing
// else.
func decodeObject(raw []byte) (*object, error) {
	if !json.Valid(raw) {
		// Unmarshal finds the place of the syntax error.
		var v any
		err := json.Unmarshal(raw, &v)
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if t != json.Delim('{') {
		return nil, fmt.Errorf("the settings are %s, not a JSON object", kind(raw))
	}
	o := &object{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.members = append(o.members, member{key, v})
	}
	return o, nil
}

func kind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func (o *object) get(key string) (json.RawMessage, bool) {
	// The last of duplicate keys is the one JSON readers keep.
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].key == key {
			return o.members[i].value, true
		}
	}
	return nil, false
}

// set replaces key's value where it is, or appends it.
func (o *object) set(key string, v json.RawMessage) {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].key == key {
			o.members[i].value = v
			return
		}
	}
	o.members = append(o.members, member{key, v})
}

// raw encodes o compactly.
func (o *object) raw() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o.members {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// marshal encodes v without escaping HTML: commands hold "&&" and "<".
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// rawArray encodes a compactly.
func rawArray(a []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(v)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// sameJSON reports whether a and b are the same JSON text but for white
// space.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
