package jsonscan

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func members(data string) []string {
	var out []string
	Members([]byte(data), func(k string, v []byte) bool {
		out = append(out, k+"="+string(v))
		return true
	})
	return out
}

func TestMembers(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	tests := []struct {
		name, in string
		want     []string
	}{
		{"valid", `{"a": 1, "b": "x", "c": {"d": [1, {"e": 2}]}}`, []string{`a=1`, `b="x"`, `c={"d": [1, {"e": 2}]}`}},
		{"past the decoder's depth", `{"tool_input": {"x": ` + deep + `}, "tool_name": "Bash"}`, []string{`tool_input={"x": ` + deep + `}`, `tool_name="Bash"`}},
		{"a key twice", `{"tool_name": "Read", "tool_name": "Bash"}`, []string{`tool_name="Read"`, `tool_name="Bash"`}},
		{"escaped quotes and brackets in strings", `{"a": "x\"}]", "b": ["\\", "]"]}`, []string{`a="x\"}]"`, `b=["\\", "]"]`}},
		{"escaped key", `{"tool\u005fname": "Bash"}`, []string{`tool_name="Bash"`}},
		{"invalid UTF-8 kept as it is", "{\"a\": \"x\xffy\", \"b\": 2}", []string{"a=\"x\xffy\"", "b=2"}},
		{"truncated in a value", `{"tool_name": "Bash", "tool_input": {"command": "ssh web-01`, []string{`tool_name="Bash"`}},
		{"truncated in a string", `{"tool_name": "Ba`, nil},
		{"truncated after a value", `{"tool_name": "Bash"`, nil},
		{"unclosed object", `{"a": 1,`, []string{`a=1`}},
		{"garbage after a member", `{"a": 1 x, "b": 2}`, nil},
		{"not an object", `["tool_name", "Bash"]`, nil},
		{"empty", ``, nil},
		{"a value missing", `{"a": , "b": 2}`, nil},
		{"a key without a colon", `{"a" 1}`, nil},
		{"a huge number", `{"n": 1e999999, "s": "x"}`, []string{`n=1e999999`, `s="x"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := members(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMembersStops(t *testing.T) {
	t.Parallel()
	n := 0
	Members([]byte(`{"a": 1, "b": 2, "c": 3}`), func(string, []byte) bool {
		n++
		return n < 2
	})
	if n != 2 {
		t.Errorf("fn called %d times after returning false, want 2", n)
	}
}

// FuzzMembers checks that Members never panics and, on a valid object,
// reads exactly its top-level members as encoding/json does.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"a": 1, "b": {"c": "d"}}`, `{"tool_name": "Bash", "tool_name": "Read"}`, `{"a": "\"", "b": [{}]}`, `{"a"`, "{\"a\": \"\xff\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []string
		Members(data, func(k string, v []byte) bool {
			got = append(got, k)
			if len(v) == 0 {
				t.Fatalf("member %q with an empty value", k)
			}
			return true
		})
		var obj map[string]json.RawMessage
		if !json.Valid(data) || json.Unmarshal(data, &obj) != nil {
			return
		}
		keys, depths, _ := decoderKeys(data)
		var want []string
		for i, k := range keys {
			if depths[i] == 1 {
				want = append(want, k)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("members %q, the decoder's %q", got, want)
		}
	})
}
