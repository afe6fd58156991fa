package jsonappend

import (
	"bytes"
	"encoding/json"
	"testing"
)

// quoting holds the quoting cases: every escape encoding/json writes, the
// characters it leaves alone with HTML escaping off, and invalid UTF-8.
var quoting = []string{
	"", "plain", "a\"b\\c</script>&\x01\t\n\u2028\u2029é\xff", "\x7f\x00\xed\xa0\x80",
	"\b\f\r\x1f", "日本語 ✓", "\xc3", "a\u2028", "tail\\",
}

// encoded is v as encoding/json writes it with HTML escaping off, without
// the newline.
func encoded(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func TestString(t *testing.T) {
	t.Parallel()
	for _, s := range quoting {
		if got, want := string(String([]byte("x"), s)), "x"+encoded(t, s); got != want {
			t.Errorf("String(%q) = %s, encoding/json %s", s, got, want)
		}
	}
}

// TestObject holds an object written by Key, Field, Bool and Close to
// encoding/json's, for every member left out or in.
func TestObject(t *testing.T) {
	t.Parallel()
	type object struct {
		A string `json:"a,omitempty"`
		B bool   `json:"b"`
		C string `json:"c_d,omitempty"`
	}
	for _, v := range []object{{}, {A: "1"}, {B: true}, {C: "\n"}, {A: "1", B: true, C: "é"}} {
		b := []byte("[")
		start := len(b)
		b = append(b, '{')
		b = Field(b, "a", v.A)
		b = Bool(b, "b", v.B)
		b = Field(b, "c_d", v.C)
		if got, want := string(Close(b, start)), "["+encoded(t, v); got != want {
			t.Errorf("%+v: %s, encoding/json %s", v, got, want)
		}
	}
	if got := string(Close([]byte("{"), 0)); got != "{}" {
		t.Errorf("an empty object is %s, want {}", got)
	}
}

// FuzzString holds String to encoding/json's quoting.
func FuzzString(f *testing.F) {
	for _, s := range quoting {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(String(nil, s)), encoded(t, s); got != want {
			t.Fatalf("String(%q) = %s, encoding/json %s", s, got, want)
		}
	})
}
