package jsonscan

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// decoderKeys lists the keys of data and their depths with encoding/json,
// the reference Keys must agree with.
func decoderKeys(data []byte) (keys []string, depths []int, ok bool) {
	type frame struct{ object, expectKey bool }
	var stack []frame
	dec := json.NewDecoder(bytes.NewReader(data))
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return keys, depths, err.Error() == "EOF"
		}
		top := len(stack) - 1
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if t == '{' {
					depth++
				}
				stack = append(stack, frame{object: t == '{', expectKey: t == '{'})
				continue
			case '}':
				depth--
			}
			stack = stack[:top]
		case string:
			if top >= 0 && stack[top].expectKey {
				keys, depths = append(keys, t), append(depths, depth)
				stack[top].expectKey = false
				continue
			}
		}
		if top = len(stack) - 1; top >= 0 && stack[top].object {
			stack[top].expectKey = true
		}
	}
}

// scanKeys lists the keys Keys finds, in the decoder's order: each key
// before the keys inside its value.
func scanKeys(data []byte) (keys []string, depths []int) {
	type key struct {
		name  string
		depth int
		start int // the offset of its value
	}
	var all []key
	Keys(data, func(k Key) bool {
		start := 0
		if len(k.Value) > 0 {
			start = cap(data) - cap(k.Value)
		}
		all = append(all, key{k.Name, k.Depth, start})
		return true
	})
	slices.SortStableFunc(all, func(a, b key) int { return a.start - b.start })
	for _, k := range all {
		keys, depths = append(keys, k.name), append(depths, k.depth)
	}
	return keys, depths
}

var seeds = []string{
	`{}`,
	`{"command":"ls -la"}`,
	`{"a":{"b":[1,{"c":"d\"}"}],"e":null},"f":true, "g" : -1.5e3 }`,
	`{"k\u0065y":"\"quoted\" \\","Key":"x\\"}`,
	`{"command":"git commit -m \"fix \\\\\" now\"\nEOF","description":"héllo \ud83d\ude00"}`,
	`[{"a":1},{"a":2,"A":3}]`,
	`"just a string"`,
	`{"x":[[],[[]],{}],"y":{"z":{"w":{}}}}`,
	`{"K":1,"\u212a":2}`,
}

func TestKeysAgreesWithDecoder(t *testing.T) {
	t.Parallel()
	for _, s := range seeds {
		want, wantDepths, ok := decoderKeys([]byte(s))
		if !ok {
			t.Fatalf("seed %s is not valid JSON", s)
		}
		got, depths := scanKeys([]byte(s))
		if !slices.Equal(got, want) || !slices.Equal(depths, wantDepths) {
			t.Errorf("Keys(%s) = %q %v, want %q %v", s, got, depths, want, wantDepths)
		}
	}
}

// TestKeysStops checks that fn is not called again once it returned false,
// also for the keys whose values hold the key it stopped at.
func TestKeysStops(t *testing.T) {
	t.Parallel()
	var got []string
	Keys([]byte(`{"a":{"b":{"c":1,"d":2}},"e":3}`), func(k Key) bool {
		got = append(got, k.Name)
		return k.Name != "c"
	})
	if !slices.Equal(got, []string{"c"}) {
		t.Errorf("keys after stopping: %q", got)
	}
}

func TestMember(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, key, want string
		ok            bool
	}{
		{`{"command":"ls"}`, "command", `"ls"`, true},
		{`{"Command":"ls"}`, "command", "", false},
		{`{"a":{"command":"nested"},"command":["a","b"]}`, "command", `["a","b"]`, true},
		{`{"command":"first","command":"last"}`, "command", `"last"`, true},
		{`{"c\u006fmmand":"escaped"}`, "command", `"escaped"`, true},
		{`{"x":"\"command\":\"fake\""}`, "command", "", false},
	}
	for _, tt := range tests {
		raw, ok := Member([]byte(tt.in), tt.key)
		if string(raw) != tt.want || ok != tt.ok {
			t.Errorf("Member(%s, %q) = %s, %v; want %s, %v", tt.in, tt.key, raw, ok, tt.want, tt.ok)
		}
	}
}

// FuzzKeys checks Keys against encoding/json on every valid input, and that
// it survives any other.
func FuzzKeys(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"a":`))
	f.Add([]byte(`{"a" 1 "b":}}]]`))
	f.Add(bytes.Repeat([]byte(`[{"a":`), maxNest+5))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, depths := scanKeys(data)
		if !json.Valid(data) {
			return
		}
		want, wantDepths, _ := decoderKeys(data)
		if !slices.Equal(got, want) || !slices.Equal(depths, wantDepths) {
			t.Errorf("Keys(%q) = %q %v, want %q %v", data, got, depths, want, wantDepths)
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) == nil {
			for k, v := range m {
				raw, ok := Member(data, k)
				if !ok || !bytes.Equal(raw, v) {
					t.Errorf("Member(%q, %q) = %s, %v; want %s", data, k, raw, ok, v)
				}
			}
		}
	})
}

// FuzzString checks String against json.Unmarshal into a string, for every
// input that starts with a quote and ends without space (String reads a
// value's exact span), valid or not.
func FuzzString(f *testing.F) {
	for _, s := range []string{`""`, `"plain"`, `"a\nb\t\"q\" \\ \/ \b\f\r"`, `"\u00e9\ud83d\ude00"`, `"\ud800 lone"`,
		`"\ud800\u0041"`, "\"bad \xff utf8\"", `"ctl ` + "\x01" + `"`, `"unterminated`, `"a"b"`, `"\x"`, `"\u12"`, `"é"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) == 0 || raw[0] != '"' || bytes.ContainsAny(raw[len(raw)-1:], " \t\r\n") {
			return
		}
		got, ok := String(raw)
		var want string
		err := json.Unmarshal(raw, &want)
		if ok != (err == nil) || ok && got != want {
			t.Fatalf("String(%q) = %q, %v; json.Unmarshal: %q, %v", raw, got, ok, want, err)
		}
	})
}
