package jsonscan

import (
	"bytes"
	"encoding/json"
)

// Key is an object key met by Keys.
type Key struct {
	// Object numbers the object the key is in, in the order the objects
	// open: 0 is the outermost.
	Object int
	// Depth is the number of objects the key is in, 1 for the keys of
	// the outermost object.
	Depth int
	// Name is the key, unescaped.
	Name string
	// Value is the member's raw value.
	Value []byte
}

// Keys calls fn for every object key in the valid JSON data until fn
// returns false: the keys of each object in the order they are written,
// each after the keys inside its own value.
func Keys(data []byte, fn func(Key) bool) {
	s := scanner{data: data, fn: fn}
	s.value(0)
}

// Member returns the raw value of the member named key, in its exact
// spelling, of the valid JSON object data: the last one when it occurs
// more than once, as encoding/json keeps.
func Member(data []byte, key string) (raw []byte, ok bool) {
	Keys(data, func(k Key) bool {
		if k.Depth == 1 && k.Name == key {
			raw, ok = k.Value, true
		}
		return true
	})
	return raw, ok
}

type scanner struct {
	data    []byte
	i       int
	objects int
	nest    int // objects and arrays open
	fn      func(Key) bool
	stop    bool
}

// maxNest is encoding/json's limit on nesting, which valid input keeps to;
// past it, Keys stops rather than recurse without end.
const maxNest = 10000

func (s *scanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value reads the value at s.i, which is inside depth objects and arrays.
func (s *scanner) value(depth int) {
	s.space()
	if s.i >= len(s.data) || s.stop {
		return
	}
	switch s.data[s.i] {
	case '{', '[':
		if s.nest++; s.nest > maxNest {
			s.stop = true
			return
		}
		defer func() { s.nest-- }()
	}
	switch s.data[s.i] {
	case '{':
		s.object(depth + 1)
	case '[':
		s.i++
		for !s.stop {
			s.space()
			if s.i >= len(s.data) {
				return
			}
			if s.data[s.i] == ']' {
				s.i++
				return
			}
			if s.data[s.i] == ',' {
				s.i++
				continue
			}
			before := s.i
			s.value(depth)
			if s.i == before {
				s.i++ // not valid JSON: move on all the same
			}
		}
	case '"':
		s.str()
	default:
		// A number, true, false or null.
		for s.i < len(s.data) {
			switch s.data[s.i] {
			case ',', ']', '}', ' ', '\t', '\n', '\r':
				return
			}
			s.i++
		}
	}
}

func (s *scanner) object(depth int) {
	id := s.objects
	s.objects++
	s.i++ // {
	for !s.stop {
		s.space()
		if s.i >= len(s.data) {
			return
		}
		switch s.data[s.i] {
		case '}':
			s.i++
			return
		case ',':
			s.i++
			continue
		case '"':
		default:
			s.i++ // not valid JSON
			continue
		}
		start := s.i
		s.str()
		name := s.data[start:s.i]
		s.space()
		if s.i < len(s.data) && s.data[s.i] == ':' {
			s.i++
		}
		s.space()
		vstart := s.i
		s.value(depth)
		if s.stop {
			return
		}
		if !s.fn(Key{Object: id, Depth: depth, Name: unquote(name), Value: s.data[vstart:s.i]}) {
			s.stop = true
		}
	}
}

// str skips the string at s.i, quotes included.
func (s *scanner) str() {
	s.i++ // the opening quote
	for {
		j := bytes.IndexByte(s.data[s.i:], '"')
		if j < 0 {
			s.i = len(s.data)
			return
		}
		s.i += j + 1
		// The quote ends the string unless an odd number of
		// backslashes escapes it.
		n := 0
		for k := s.i - 2; k >= 0 && s.data[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return
		}
	}
}

// unquote unescapes a quoted key, the way encoding/json does.
func unquote(q []byte) string {
	if len(q) >= 2 && bytes.IndexByte(q, '\\') < 0 && isPlain(q[1:len(q)-1]) {
		return string(q[1 : len(q)-1])
	}
	var k string
	if json.Unmarshal(q, &k) != nil {
		return string(q)
	}
	return k
}

// isPlain reports whether b is printable ASCII, which encoding/json keeps
// as it is.
func isPlain(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x80 {
			return false
		}
	}
	return true
}
