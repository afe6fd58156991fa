package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{`{"a":[1,-2.5e+3,true,false,null,{"b":"c\"\\\/\b\f\n\r\t\u00e9"}]}`, true},
		{` [ ] `, true},
		{`{}`, true},
		{"\"\xff\"", true},
		{`0`, true},
		{``, false},
		{`{`, false},
		{`{"a":1,}`, false},
		{`[1,]`, false},
		{`[01]`, false},
		{`{"a" 1}`, false},
		{`"a` + "\x01" + `"`, false},
		{`"\x"`, false},
		{`"\u12g4"`, false},
		{`1.`, false},
		{`-`, false},
		{`tru`, false},
		{`{} {}`, false},
		{string(bytes.Repeat([]byte("["), maxNest)) + string(bytes.Repeat([]byte("]"), maxNest)), true},
		{string(bytes.Repeat([]byte("["), maxNest+1)) + string(bytes.Repeat([]byte("]"), maxNest+1)), false},
	} {
		if got := Valid([]byte(tt.in)); got != tt.want || got != json.Valid([]byte(tt.in)) {
			t.Errorf("Valid(%.40q) = %v, want %v (json.Valid %v)", tt.in, got, tt.want, json.Valid([]byte(tt.in)))
		}
	}
}

// FuzzValid holds Valid to json.Valid.
func FuzzValid(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"a":[1,-2.5e+3,true,false,null,{"b":"c\"\\\/\b\f\n\r\t\u00e9"}]}`, `[01]`, `{"a":1,}`, "\"\x01\"", `1e`, `-0.0E-1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid %v", data, got, want)
		}
	})
}

// BenchmarkValid reads an event of the benchmark's prose-heavy shape: a
// commit message of 2,000 lines in a heredoc.
func BenchmarkValid(b *testing.B) {
	var cmd strings.Builder
	cmd.WriteString("git commit -F - <<'EOF'\n")
	for range 2000 {
		cmd.WriteString("do not run `govc vm.destroy web-01` or `ssh web-01 sudo reboot`; gh issue create --body 'do not revisit'\n")
	}
	cmd.WriteString("EOF")
	data, err := json.Marshal(map[string]any{"tool_name": "Bash", "tool_input": map[string]string{"command": cmd.String()}})
	if err != nil || !json.Valid(data) {
		b.Fatal(err)
	}
	for _, v := range []struct {
		name  string
		valid func([]byte) bool
	}{{"jsonscan", Valid}, {"encoding-json", json.Valid}} {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if !v.valid(data) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
