package hook

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/hostio"
)

// TestExcerpt holds the excerpt of a decoded event, read by jsonscan, to
// the excerpt of the same input in an event made otherwise, read by
// encoding/json, and to what the log must show.
func TestExcerpt(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ input, want string }{
		{`{"command":"ls -la"}`, "ls -la"},
		{`{"command":"echo \"a\tb\" \u00e9 \ud800"}`, "echo \"a\tb\" é \ufffd"},
		{`{"command":"first","command":"last"}`, "last"},
		{`{"Command":"cased"}`, `{"Command":"cased"}`},
		{`{"command":""}`, `{"command":""}`},
		{`{"command":["ls","-la"]}`, `{"command":["ls","-la"]}`},
		{`{"command":7}`, `{"command":7}`},
		{`{"file_path":"/tmp/x"}`, `{"file_path":"/tmp/x"}`},
		{` {"command":"spaced"}`, "spaced"},
		{`{"nested":{"command":"inner"}}`, `{"nested":{"command":"inner"}}`},
	} {
		raw, err := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": json.RawMessage(tt.input)})
		if err != nil {
			t.Fatal(err)
		}
		decoded, err := hostio.Decode(strings.NewReader(string(raw)), hostio.Claude)
		if err != nil {
			t.Fatalf("%s: %v", tt.input, err)
		}
		if !decoded.Call().InputValid {
			t.Fatalf("%s: a decoded event's input is not known valid", tt.input)
		}
		made := &hostio.Event{ToolName: "Bash", ToolInput: decoded.ToolInput}
		if got := excerpt(decoded); got != tt.want {
			t.Errorf("excerpt of the decoded %s = %q, want %q", tt.input, got, tt.want)
		}
		if got := excerpt(made); got != tt.want {
			t.Errorf("excerpt of the made %s = %q, want %q", tt.input, got, tt.want)
		}
	}
}
