package policy

import (
	"encoding/json"
	"strings"
	"testing"
)

// ambiguousTests are inputs with a key twice (in any case) in one object,
// and inputs without; shared with the fuzz target as its seed corpus.
var ambiguousTests = []struct {
	in   string
	want string // a part of the description; "" means not ambiguous
}{
	{`{"command":"ssh web-01 sudo reboot","Command":"ls"}`, `"command" and "Command" differ only in case`},
	{`{"Command":"ls","command":"ssh web-01 sudo reboot"}`, `"Command" and "command"`},
	{`{"command":"ls","command":"govc vm.destroy web-01"}`, `"command" occurs twice`},
	{`{"command":"ls","comm\u0061nd":"x"}`, `occurs twice`},
	{`{"vm_name":"web-01","VM_NAME":"scratch"}`, `differ only in case`},
	{`{"spec":{"vm":"web-01","Vm":"x"}}`, `in /spec`},
	{`{"edits":[{"new_string":"a"},{"new_string":"b","New_String":"c"}]}`, `in /edits/*`},
	{`{"a":[[{"k":1,"\u212a":2}]]}`, `in /a/*/*`},
	{`{"command":"ls","description":"list","timeout":1,"run_in_background":false}`, ""},
	{`{"edits":[{"new_string":"a"},{"new_string":"b"}]}`, ""},
	{`{"a":{"k":1},"b":{"k":2},"k":[{"k":3}]}`, ""},
	{`{"command":"{\"command\":1,\"command\":2}"}`, ""},
	{`not json`, ""},
	{`{"a":`, ""},
	{`[]`, ""},
}

func TestAmbiguousKey(t *testing.T) {
	t.Parallel()
	for _, tt := range ambiguousTests {
		got := ambiguousKey([]byte(tt.in))
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("ambiguousKey(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestAmbiguousInputAsked: the host reads "command" and Go's decoder
// would read "Command" too, so such a call is asked whatever it holds.
func TestAmbiguousInputAsked(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, userConfig)
	for _, tt := range []struct{ tool, in string }{
		{"Bash", `{"command":"ssh web-01 sudo reboot","Command":"ls"}`},
		{"Bash", `{"Command":"ls","command":"ssh web-01 sudo reboot"}`},
		{"mcp__vsphere__power_off_vm", `{"vm_name":"web-01","Vm_Name":"scratch"}`},
		{"Write", `{"file_path":"a.txt","File_Path":"src/a.go","content":"do not revisit"}`},
	} {
		v := p.Classify(Call{Tool: tt.tool, Input: json.RawMessage(tt.in)})
		if v.Effect != Ask || !strings.Contains(v.Reason, "ambiguous") || v.Rule != ambiguousRule {
			t.Errorf("%s %s: got %s (%s: %s), want ask about the ambiguous input", tt.tool, tt.in, v.Effect, v.Rule, v.Reason)
		}
	}
	// Only the exact spelling is the command: "Command" alone is not one.
	v := p.Classify(Call{Tool: "Bash", Input: json.RawMessage(`{"Command":"govc vm.destroy web-01"}`)})
	if v.Effect != Ask || !strings.Contains(v.Reason, "no command string") {
		t.Errorf(`{"Command": ...} alone: got %s (%s), want ask: no command`, v.Effect, v.Reason)
	}
}

func FuzzAmbiguousKey(f *testing.F) {
	for _, tt := range ambiguousTests {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := ambiguousKey(data)
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		// The quick look Classify takes first agrees on every valid input.
		if foldedKeys(data) != (got != "") {
			t.Fatalf("foldedKeys(%q) = %v, but ambiguousKey = %q", data, foldedKeys(data), got)
		}
		// A decoded map keeps keys that differ in case apart (and the
		// last of keys written alike): it holds two that fold alike
		// exactly when the keys differ only in case somewhere.
		folded := foldedPair(v)
		if folded != strings.Contains(got, "differ only in case") && !strings.Contains(got, "occurs twice") {
			t.Fatalf("ambiguousKey(%q) = %q, but keys differing in case: %v", data, got, folded)
		}
		if got == "" && folded {
			t.Fatalf("ambiguousKey(%q) missed keys differing in case", data)
		}
	})
}

// foldedPair reports whether an object in v holds two keys that fold alike.
func foldedPair(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		seen := map[string]bool{}
		for k, e := range v {
			if seen[foldKey(k)] || foldedPair(e) {
				return true
			}
			seen[foldKey(k)] = true
		}
	case []any:
		for _, e := range v {
			if foldedPair(e) {
				return true
			}
		}
	}
	return false
}

// FuzzShellCommand checks that the quick read of a valid input's command
// (jsonscan) gives what decoding the input gives.
func FuzzShellCommand(f *testing.F) {
	for _, s := range []string{
		`{"command":"ls -la"}`,
		`{"command":["git","commit","-m","a b"]}`,
		`{"description":"x","command":"a\nb \"q\" \u00e9 \ud800"}`,
		`{"command":"first","command":"last"}`,
		`{"Command":"ls"}`,
		`{"nested":{"command":"no"},"command":"yes"}`,
		`{"command":null}`,
		`{"command":[]}`,
		`null`,
		`["command"]`,
		` {"command":"spaced"} `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		quick, qerr := shellCommand(data, true)
		slow, serr := shellCommand(data, false)
		if quick != slow || (qerr == nil) != (serr == nil) || qerr != nil && qerr.Error() != serr.Error() {
			t.Fatalf("shellCommand(%q): quick %q, %v; decoded %q, %v", data, quick, qerr, slow, serr)
		}
	})
}
