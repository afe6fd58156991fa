package hostio

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/policy"
)

const bashEvent = `{
  "session_id": "abc123",
  "transcript_path": "/home/u/.claude/projects/p/abc123.jsonl",
  "cwd": "/home/u/infra",
  "permission_mode": "default",
  "hook_event_name": "PreToolUse",
  "tool_name": "Bash",
  "tool_input": {"command": "govc vm.power -off web-01", "description": "Power off web-01", "timeout": 120000, "run_in_background": false},
  "tool_use_id": "toolu_01ABC"
}`

// decodeTests are shared with the fuzz target as its seed corpus.
var decodeTests = []struct {
	name string
	in   string
	want *Event
	// wantErr is checked with errors.Is when it is a sentinel, and as a
	// type with errors.As when it is a pointer to a typed error.
	wantErr any
}{
	{
		name: "Bash",
		in:   bashEvent,
		want: &Event{
			SessionID:      "abc123",
			TranscriptPath: "/home/u/.claude/projects/p/abc123.jsonl",
			Cwd:            "/home/u/infra",
			PermissionMode: "default",
			HookEventName:  "PreToolUse",
			ToolName:       "Bash",
			ToolUseID:      "toolu_01ABC",
			ToolInput:      json.RawMessage(`{"command": "govc vm.power -off web-01", "description": "Power off web-01", "timeout": 120000, "run_in_background": false}`),
		},
	},
	{
		name: "MCP",
		in:   `{"session_id":"s","cwd":"/","hook_event_name":"PreToolUse","tool_name":"mcp__vsphere__power_off_vm","tool_input":{"vm_name":"web-01"},"tool_use_id":"toolu_2"}`,
		want: &Event{SessionID: "s", Cwd: "/", HookEventName: "PreToolUse", ToolName: "mcp__vsphere__power_off_vm", ToolUseID: "toolu_2", ToolInput: json.RawMessage(`{"vm_name":"web-01"}`)},
	},
	{
		name: "Write",
		in:   `{"hook_event_name":"PreToolUse","permission_mode":"bypassPermissions","tool_name":"Write","tool_input":{"file_path":"/srv/a.txt","content":"line1\nline2 <&> \u00e9"}}`,
		want: &Event{HookEventName: "PreToolUse", PermissionMode: "bypassPermissions", ToolName: "Write", ToolInput: json.RawMessage(`{"file_path":"/srv/a.txt","content":"line1\nline2 <&> \u00e9"}`)},
	},
	{
		name: "NoEventNameIsPreToolUse",
		in:   `{"tool_name":"Bash","tool_input":{"command":"ls"}}`,
		want: &Event{HookEventName: "PreToolUse", ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ls"}`)},
	},
	{
		// Claude Code's PowerShell tool (Windows) reaches the policy as
		// Bash does: the tool's name and its {"command"}.
		name: "PowerShell",
		in:   `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"PowerShell","tool_input":{"command":"Stop-VM -Name web-01","timeout":120000},"tool_use_id":"toolu_p"}`,
		want: &Event{SessionID: "s", HookEventName: "PreToolUse", ToolName: "PowerShell", ToolUseID: "toolu_p",
			ToolInput: json.RawMessage(`{"command":"Stop-VM -Name web-01","timeout":120000}`)},
	},
	{
		name: "UnknownFieldsIgnored",
		in:   "\n\t" + `{"tool_name":"Read","tool_input":{},"future":[1,2,{"x":null}]}` + "\n\n",
		want: &Event{HookEventName: "PreToolUse", ToolName: "Read", ToolInput: json.RawMessage(`{}`)},
	},
	{name: "Empty", in: "", wantErr: new(*MalformedError)},
	{name: "OnlySpace", in: " \n\t ", wantErr: new(*MalformedError)},
	{name: "InvalidJSON", in: `{"tool_name":"Bash",`, wantErr: new(*MalformedError)},
	{name: "BadSyntax", in: `{"tool_name" "Bash"}`, wantErr: new(*MalformedError)},
	{name: "TrailingGarbage", in: `{"tool_name":"Bash","tool_input":{}} rm -rf /`, wantErr: new(*MalformedError)},
	{name: "TwoObjects", in: `{"tool_name":"Bash","tool_input":{}}{"tool_name":"Bash","tool_input":{}}`, wantErr: new(*MalformedError)},
	{name: "Array", in: `[{"tool_name":"Bash","tool_input":{}}]`, wantErr: new(*MalformedError)},
	{name: "String", in: `"PreToolUse"`, wantErr: new(*MalformedError)},
	{name: "Null", in: `null`, wantErr: new(*MalformedError)},
	{name: "ToolNameNumber", in: `{"tool_name":5,"tool_input":{}}`, wantErr: new(*MalformedError)},
	{name: "MissingToolName", in: `{"hook_event_name":"PreToolUse","tool_input":{}}`, wantErr: new(*MalformedError)},
	{name: "MissingEverything", in: `{}`, wantErr: new(*MalformedError)},
	{name: "MissingToolInput", in: `{"hook_event_name":"PreToolUse","tool_name":"Bash"}`, wantErr: new(*MalformedError)},
	{name: "NullToolInput", in: `{"tool_name":"Bash","tool_input":null}`, wantErr: new(*MalformedError)},
	{name: "StringToolInput", in: `{"tool_name":"Bash","tool_input":"ls"}`, wantErr: new(*MalformedError)},
	{name: "ArrayToolInput", in: `{"tool_name":"Bash","tool_input":["ls"]}`, wantErr: new(*MalformedError)},
	{
		name: "PostToolUse",
		in:   `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"govc vm.power -off web-01"},"tool_response":{"stdout":"","stderr":"","interrupted":false},"tool_use_id":"toolu_1","duration_ms":4187}`,
		want: &Event{SessionID: "s", HookEventName: "PostToolUse", ToolName: "Bash", ToolUseID: "toolu_1", ToolInput: json.RawMessage(`{"command":"govc vm.power -off web-01"}`),
			Outcome: &Outcome{Ran: true, ExitCode: intp(0), Duration: 4187 * time.Millisecond, HasDuration: true}},
	},
	{
		name: "PostToolUseInterrupted",
		in:   `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{},"tool_response":{"interrupted":true}}`,
		want: &Event{HookEventName: "PostToolUse", ToolName: "Bash", ToolInput: json.RawMessage(`{}`), Outcome: &Outcome{Ran: true, Interrupted: true}},
	},
	{
		name: "PostToolUseFailureExitCode",
		in:   `{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{},"tool_use_id":"t","error":"Exit code 3\nno such VM","is_interrupt":false,"duration_ms":12}`,
		want: &Event{HookEventName: "PostToolUse", ToolName: "Bash", ToolUseID: "t", ToolInput: json.RawMessage(`{}`),
			Outcome: &Outcome{Ran: true, Failed: true, ExitCode: intp(3), Error: "Exit code 3\nno such VM", Duration: 12 * time.Millisecond, HasDuration: true}},
	},
	{
		// A shell Claude Code could not start reports no exit code.
		name: "PostToolUseFailureNotStarted",
		in:   `{"hook_event_name":"PostToolUseFailure","tool_name":"PowerShell","tool_input":{},"error":"spawn pwsh ENOENT"}`,
		want: &Event{HookEventName: "PostToolUse", ToolName: "PowerShell", ToolInput: json.RawMessage(`{}`),
			Outcome: &Outcome{Failed: true, Error: "spawn pwsh ENOENT"}},
	},
	{
		name: "PostToolUseFailureOtherTool",
		in:   `{"hook_event_name":"PostToolUseFailure","tool_name":"Write","tool_input":{},"error":"EACCES","is_interrupt":true}`,
		want: &Event{HookEventName: "PostToolUse", ToolName: "Write", ToolInput: json.RawMessage(`{}`),
			Outcome: &Outcome{Ran: true, Failed: true, Error: "EACCES", Interrupted: true}},
	},
	{name: "Stop", in: `{"hook_event_name":"Stop","stop_hook_active":false}`, wantErr: new(*EventError)},
	{name: "Lowercase", in: `{"hook_event_name":"pretooluse","tool_name":"Bash","tool_input":{}}`, wantErr: ErrNotPreToolUse},
	// Keys are read in their exact spelling, as the host reads them: a key
	// in another case is not the field, and a key twice is ambiguous.
	{name: "KeyInOtherCaseIgnored", in: `{"TOOL_NAME":"Bash","tool_input":{}}`, wantErr: new(*MalformedError)},
	{name: "KeyInTwoCases", in: `{"tool_name":"Read","Tool_Name":"Bash","tool_input":{}}`, wantErr: new(*MalformedError)},
	{name: "KeyTwice", in: `{"tool_name":"Read","tool_input":{},"tool_name":"Bash"}`, wantErr: new(*MalformedError)},
	{name: "EscapedKeyTwice", in: `{"tool_name":"Read","tool_input":{},"cwd":"/a","cw\u0064":"/b"}`, wantErr: new(*MalformedError)},
	{name: "KelvinSignIsK", in: `{"hook_event_name":"PreToolUse","hoo\u212a_event_name":"Stop","tool_name":"Read","tool_input":{}}`, wantErr: new(*MalformedError)},
	{
		// What is in tool_input is the policy's to judge (it asks about an
		// ambiguous input): the event itself is well formed.
		name: "ToolInputKeysInTwoCasesDecoded",
		in:   `{"tool_name":"Bash","tool_input":{"command":"ssh web-01 sudo reboot","Command":"ls"}}`,
		want: &Event{HookEventName: "PreToolUse", ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ssh web-01 sudo reboot","Command":"ls"}`)},
	},
	{name: "CwdInOtherCase", in: `{"tool_name":"Read","tool_input":{},"CWD":"/elsewhere"}`, wantErr: new(*MalformedError)},
}

func TestDecode(t *testing.T) {
	t.Parallel()
	for _, tt := range decodeTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode(strings.NewReader(tt.in), Claude)
			if tt.wantErr != nil {
				if got != nil {
					t.Errorf("Decode returned an event %+v with an error", got)
				}
				checkErr(t, err, tt.wantErr)
				checkErrMessage(t, err)
				return
			}
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			// A decoded event vouches for its input's JSON.
			want := *tt.want
			want.decoded, want.raw = true, []byte(tt.in)
			if !reflect.DeepEqual(got, &want) {
				t.Errorf("Decode:\n got %+v\nwant %+v", got, &want)
			}
			wantCall := policy.Call{Tool: tt.want.ToolName, Input: tt.want.ToolInput, Cwd: tt.want.Cwd, InputValid: true}
			if call := got.Call(); !reflect.DeepEqual(call, wantCall) {
				t.Errorf("Call() = %+v, want %+v", call, wantCall)
			}
		})
	}
}

func checkErr(t *testing.T, err error, want any) {
	t.Helper()
	switch want := want.(type) {
	case error:
		if !errors.Is(err, want) {
			t.Fatalf("error %v, want %v", err, want)
		}
	default:
		if err == nil || !errors.As(err, want) {
			t.Fatalf("error %v (%T), want %T", err, err, reflect.ValueOf(want).Elem().Interface())
		}
	}
}

// checkErrMessage asserts the message is a single, short line: the event
// must never be echoed back.
func checkErrMessage(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") || len(msg) > 200 {
		t.Errorf("error message is not one short line: %q", msg)
	}
}

func TestDecodeErrorDetails(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{`{"tool_name":"Bash",`, "malformed hook event: invalid JSON at byte 20: unexpected end of JSON input"},
		{`[]`, "malformed hook event: the event is an array, not a JSON object"},
		{`{"tool_name":["Bash"],"tool_input":{}}`, "malformed hook event: tool_name is an array, not a string"},
		{`{"tool_name":"Bash","tool_input":"ls -l"}`, "malformed hook event: tool_input is a string, not an object"},
		{`{"tool_name":"Bash"}`, "malformed hook event: no tool_input"},
		{`{"hook_event_name":"PreToolUse","tool_input":{}}`, "malformed hook event: no tool_name"},
		{`{"hook_event_name":"SessionStart"}`, `hook event "SessionStart" is not PreToolUse`},
		{`{"tool_name":"Read","Tool_Name":"Bash","tool_input":{}}`, `malformed hook event: unknown field "Tool_Name" (keys are case-sensitive: tool_name)`},
		{`{"tool_name":"Read","tool_input":{},"tool_name":"Bash"}`, `malformed hook event: "tool_name" is given twice`},
	}
	for _, tt := range tests {
		_, err := Decode(strings.NewReader(tt.in), Claude)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Decode(%s) error = %v, want %s", tt.in, err, tt.want)
		}
	}
	var ee *EventError
	_, err := Decode(strings.NewReader(`{"hook_event_name":"UserPromptSubmit","prompt":"hi"}`), Claude)
	if !errors.As(err, &ee) || ee.Name != "UserPromptSubmit" {
		t.Errorf("error %v does not carry the event name", err)
	}
}

// endlessEvent is the start of a valid event whose command never ends; it
// counts what was read from it, so a test can check Decode stops early
// without the test itself allocating the stream.
type endlessEvent struct {
	prefix string
	n      int64
}

func (r *endlessEvent) Read(p []byte) (int, error) {
	for i := range p {
		if r.n < int64(len(r.prefix)) {
			p[i] = r.prefix[r.n]
		} else {
			p[i] = 'a'
		}
		r.n++
	}
	return len(p), nil
}

func TestDecodeTooLarge(t *testing.T) {
	t.Parallel()
	r := &endlessEvent{prefix: `{"tool_name":"Bash","tool_input":{"command":"`}
	_, err := Decode(r, Claude)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("error %v, want ErrTooLarge", err)
	}
	// io.ReadAll asks for whole buffers, so the limit shows as at most one
	// buffer's worth past MaxEventSize+1, never the endless rest.
	if r.n > 2*MaxEventSize {
		t.Errorf("Decode read %d bytes of an endless event", r.n)
	}
}

func TestDecodeLimitIsInclusive(t *testing.T) {
	t.Parallel()
	ev := `{"tool_name":"Write","tool_input":{"content":"x"}}`
	atLimit := ev + strings.Repeat(" ", MaxEventSize-len(ev))
	if _, err := Decode(strings.NewReader(atLimit), Claude); err != nil {
		t.Errorf("event of exactly MaxEventSize bytes: %v", err)
	}
	if _, err := Decode(strings.NewReader(atLimit+" "), Claude); !errors.Is(err, ErrTooLarge) {
		t.Errorf("event of MaxEventSize+1 bytes: error %v, want ErrTooLarge", err)
	}
}

type failingReader struct{}

var errBroken = errors.New("broken pipe")

func (failingReader) Read([]byte) (int, error) { return 0, errBroken }

func TestDecodeReadError(t *testing.T) {
	t.Parallel()
	_, err := Decode(io.MultiReader(strings.NewReader(`{"tool_name"`), failingReader{}), Claude)
	if !errors.Is(err, errBroken) {
		t.Errorf("error %v, want it to wrap the read error", err)
	}
}

func TestHosts(t *testing.T) {
	t.Parallel()
	const supported = "(supported: claude, codex, antigravity, cursor, copilot, opencode, kiro, windsurf, cline, gemini)"
	tests := []struct {
		in      string
		want    Host
		wantErr string
	}{
		{"claude", Claude, ""},
		{"codex", Codex, ""},
		{"gemini", Gemini, ""},
		{"cursor", Cursor, ""},
		{"copilot", Copilot, ""},
		{"antigravity", Antigravity, ""},
		{"agy", Antigravity, ""},
		{"opencode", OpenCode, ""},
		{"kiro", Kiro, ""},
		{"windsurf", Windsurf, ""},
		{"cline", Cline, ""},
		{"Claude", "", `unknown host "Claude" ` + supported},
		{"", "", `unknown host "" ` + supported},
	}
	for _, tt := range tests {
		got, err := ParseHost(tt.in)
		if got != tt.want {
			t.Errorf("ParseHost(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if gotErr := errString(err); gotErr != tt.wantErr {
			t.Errorf("ParseHost(%q) error = %q, want %q", tt.in, gotErr, tt.wantErr)
		}
	}
	// A Host that is not one of the constants is refused, also one
	// ParseHost reads as an alias.
	for _, h := range []Host{"aider", "agy"} {
		if _, err := Decode(strings.NewReader(bashEvent), h); err == nil {
			t.Errorf("Decode with host %s succeeded", h)
		}
		var buf bytes.Buffer
		if err := Encode(&buf, h, Decision{Permission: Deny}); err == nil || buf.Len() > 0 {
			t.Errorf("Encode with host %s: error %v, wrote %q", h, err, buf.String())
		}
	}
}

func intp(n int) *int { return &n }

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

var encodeTests = []struct {
	name string
	d    Decision
	want string
}{
	{name: "Zero", d: Decision{}, want: ""},
	{
		name: "Context",
		d:    Decision{Context: "checkpoint rewind-abc (id 123) on VPG web written 10:00:00; to undo: rewind undo abc"},
		want: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"checkpoint rewind-abc (id 123) on VPG web written 10:00:00; to undo: rewind undo abc"}}` + "\n",
	},
	{
		name: "Deny",
		d:    Decision{Permission: Deny, Reason: `Zerto: "VPG web is not meeting SLA"`},
		want: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Zerto: \"VPG web is not meeting SLA\""}}` + "\n",
	},
	{
		name: "Ask",
		d:    Decision{Permission: Ask, Reason: "nothing to rewind to: web-09 is unknown to Zerto"},
		want: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"nothing to rewind to: web-09 is unknown to Zerto"}}` + "\n",
	},
	{
		name: "AllowBare",
		d:    Decision{Permission: Allow},
		want: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}` + "\n",
	},
	{
		name: "DenyWithContext",
		d:    Decision{Permission: Deny, Reason: "tag on its way", Context: "retry after 10:10:30"},
		want: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"tag on its way","additionalContext":"retry after 10:10:30"}}` + "\n",
	},
	{
		name: "SystemMessageOnly",
		d:    Decision{SystemMessage: "rewind: ZVM unreachable; the call ran without a checkpoint"},
		want: `{"systemMessage":"rewind: ZVM unreachable; the call ran without a checkpoint"}` + "\n",
	},
	{
		name: "Everything",
		d:    Decision{Permission: Ask, Reason: "r", Context: "c", SystemMessage: "m"},
		want: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"r","additionalContext":"c"},"systemMessage":"m"}` + "\n",
	},
	{
		name: "NoHTMLEscapingButControlEscaping",
		d:    Decision{Permission: Deny, Reason: "a && b <c>\n\ttab"},
		want: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"a && b <c>\n\ttab"}}` + "\n",
	},
	{
		name: "InvalidUTF8",
		d:    Decision{Context: "a\xffb"},
		want: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"a\ufffdb"}}` + "\n",
	},
}

func TestEncode(t *testing.T) {
	t.Parallel()
	for _, tt := range encodeTests {
		t.Run(tt.name, func(t *testing.T) {
			w := &countingWriter{}
			if err := Encode(w, Claude, tt.d); err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if got := w.buf.String(); got != tt.want {
				t.Errorf("Encode:\n got %s\nwant %s", got, tt.want)
			}
			if tt.want != "" && w.writes != 1 {
				t.Errorf("Encode made %d writes, want 1", w.writes)
			}
			if tt.want == "" && w.writes != 0 {
				t.Errorf("Encode of the zero Decision made %d writes", w.writes)
			}
		})
	}
}

func TestEncodeInvalidPermission(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	err := Encode(&buf, Claude, Decision{Permission: "block", Reason: "x"})
	if err == nil || buf.Len() != 0 {
		t.Errorf("Encode of an invalid permission: error %v, wrote %q", err, buf.String())
	}
}

func TestEncodeWriteError(t *testing.T) {
	t.Parallel()
	err := Encode(failingWriter{}, Claude, Decision{Permission: Deny})
	if !errors.Is(err, errBroken) {
		t.Errorf("error %v, want it to wrap the write error", err)
	}
}

type countingWriter struct {
	buf    bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.buf.Write(p)
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errBroken }

func BenchmarkDecode(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(bashEvent)))
	for b.Loop() {
		if _, err := Decode(strings.NewReader(bashEvent), Claude); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	d := Decision{Context: "checkpoint rewind-20260101-abc (CheckpointIdentifier 12345) on VPG web, written 10:00:00"}
	b.ReportAllocs()
	for b.Loop() {
		if err := Encode(io.Discard, Claude, d); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOutputsAreJSON holds every host's output to the bytes encoding/json
// writes for it with HTML escaping off: each output with every field set
// (checked by reflection, so that a field added to an output and not to
// its appendJSON fails here), with each field left zero in turn, and the
// zero output.
func TestOutputsAreJSON(t *testing.T) {
	t.Parallel()
	const s = "a\"b\\c</script>&\x01\t\n\u2028\u2029é\xff"
	outputs := []output{
		claudeOutput{HookSpecificOutput: &claudeSpecific{HookEventName: s, PermissionDecision: Deny, PermissionDecisionReason: s, AdditionalContext: s}, SystemMessage: s},
		antigravityOutput{Decision: s, Reason: s},
		clineOutput{Cancel: true, ContextModification: s, ErrorMessage: s},
		copilotOutput{PermissionDecision: Ask, PermissionDecisionReason: s, AdditionalContext: s},
		cursorOutput{Permission: s, UserMessage: s, AgentMessage: s},
		geminiOutput{Decision: s, Reason: s, HookSpecificOutput: &geminiSpecific{HookEventName: s, AdditionalContext: s}, SystemMessage: s},
		openCodeOutput{Block: true, Reason: s},
	}
	for _, full := range outputs {
		v := reflect.ValueOf(full)
		if zero := zeroField(v); zero != "" {
			t.Fatalf("%T: field %s is zero; set every field", full, zero)
		}
		cases := []output{reflect.Zero(v.Type()).Interface().(output), full}
		for i := range v.NumField() {
			c := reflect.New(v.Type()).Elem()
			c.Set(v)
			c.Field(i).SetZero()
			cases = append(cases, c.Interface().(output))
			if f := v.Field(i); f.Kind() == reflect.Pointer {
				// The nested object with each of its fields zero in turn.
				for j := range f.Elem().NumField() {
					inner := reflect.New(f.Elem().Type())
					inner.Elem().Set(f.Elem())
					inner.Elem().Field(j).SetZero()
					c := reflect.New(v.Type()).Elem()
					c.Set(v)
					c.Field(i).Set(inner)
					cases = append(cases, c.Interface().(output))
				}
			}
		}
		for _, o := range cases {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(o); err != nil {
				t.Fatal(err)
			}
			if got := string(o.appendJSON([]byte("x"))); got != "x"+strings.TrimSuffix(want.String(), "\n") {
				t.Errorf("%T %+v: appendJSON %s\nencoding/json %s", o, o, got[1:], want.Bytes())
			}
		}
	}
}

// zeroField names a field of the struct v, or of a struct it points to,
// that is zero; "" when none is.
func zeroField(v reflect.Value) string {
	for i := range v.NumField() {
		f := v.Field(i)
		if f.IsZero() {
			return v.Type().Field(i).Name
		}
		if f.Kind() == reflect.Pointer {
			if inner := zeroField(f.Elem()); inner != "" {
				return v.Type().Field(i).Name + "." + inner
			}
		}
	}
	return ""
}
