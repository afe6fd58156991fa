package hostio

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeEncode feeds arbitrary bytes to Decode and the decoded event
// back through Encode, checking that neither panics, that Decode either
// returns a well-formed event or one of its documented errors, and that
// Encode writes nothing or exactly one JSON object and a newline.
func FuzzDecodeEncode(f *testing.F) {
	for _, tt := range decodeTests {
		f.Add([]byte(tt.in))
	}
	f.Add([]byte(`{"hook_event_name":"` + strings.Repeat("x", 100) + `"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := Decode(bytes.NewReader(data), Claude)
		if err != nil {
			var me *MalformedError
			if !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrNotPreToolUse) && !errors.As(err, &me) {
				t.Fatalf("undocumented error %T: %v", err, err)
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\r\n") || len(msg) > 200 {
				t.Fatalf("error message is not one short line: %q", msg)
			}
			return
		}
		if (ev.HookEventName != preToolUse || ev.Outcome != nil) && (ev.HookEventName != postToolUse || ev.Outcome == nil) || ev.ToolName == "" {
			t.Fatalf("decoded event lacks its name or tool: %+v", ev)
		}
		if ev.Outcome != nil {
			if r, err := Respond(Claude, ev, Decision{Permission: Deny}); err != nil || len(r.Stdout)+len(r.Stderr) > 0 || r.Code != 0 {
				t.Fatalf("a post-tool event got an answer: %+v, %v", r, err)
			}
			if len(ev.Outcome.Error) > maxOutcomeError+len("…") {
				t.Fatalf("outcome error of %d bytes", len(ev.Outcome.Error))
			}
			return
		}
		if !json.Valid(ev.ToolInput) || bytes.TrimSpace(ev.ToolInput)[0] != '{' {
			t.Fatalf("tool_input is not a JSON object: %q", ev.ToolInput)
		}

		perms := []Permission{NoOpinion, Allow, Ask, Deny}
		d := Decision{
			Permission:    perms[len(ev.ToolName)%len(perms)],
			Reason:        ev.ToolName,
			Context:       string(ev.ToolInput),
			SystemMessage: ev.SessionID,
		}
		var buf bytes.Buffer
		if err := Encode(&buf, Claude, d); err != nil {
			t.Fatalf("Encode: %v", err)
		}
		out := buf.Bytes()
		if len(out) == 0 {
			t.Fatalf("Encode of non-zero decision %+v wrote nothing", d)
		}
		if bytes.IndexByte(out, '\n') != len(out)-1 {
			t.Fatalf("output is not one line ending in a newline: %q", out)
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		var got claudeOutput
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("output is not JSON: %v: %q", err, out)
		}
		if _, err := dec.Token(); err != io.EOF {
			t.Fatalf("output holds more than one JSON value: %q", out)
		}
		if got.HookSpecificOutput == nil || got.HookSpecificOutput.HookEventName != preToolUse {
			t.Fatalf("output lacks hookSpecificOutput: %q", out)
		}
		if got.HookSpecificOutput.PermissionDecision != d.Permission {
			t.Fatalf("permission %q, want %q", got.HookSpecificOutput.PermissionDecision, d.Permission)
		}
		if utf8.ValidString(d.Context) && got.HookSpecificOutput.AdditionalContext != d.Context {
			t.Fatalf("context did not survive encoding:\n got %q\nwant %q", got.HookSpecificOutput.AdditionalContext, d.Context)
		}
		if got.SystemMessage != d.SystemMessage {
			t.Fatalf("systemMessage %q, want %q", got.SystemMessage, d.SystemMessage)
		}
	})
}
