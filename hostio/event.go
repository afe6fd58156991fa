package hostio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/policy"
)

// MaxEventSize is the largest event Decode accepts, in bytes. Real events are
// a few kilobytes; a Write of a large file is the biggest a host sends.
const MaxEventSize = 8 << 20

// preToolUse is the hook_event_name of the event rewind judges, and
// postToolUse that of an event that says how a call ended.
const (
	preToolUse  = "PreToolUse"
	postToolUse = "PostToolUse"
)

// Event is a host's PreToolUse event: a tool call the agent is about to
// make. For the hosts whose post-tool hook rewind installs, it is also
// the post-tool event that says how such a call ended: HookEventName is
// then "PostToolUse" and Outcome is set.
type Event struct {
	// SessionID identifies the agent session.
	SessionID string
	// TranscriptPath is the file holding the session's transcript.
	TranscriptPath string
	// Cwd is the directory the agent works in.
	Cwd string
	// PermissionMode is the host's permission mode, such as "default" or
	// "bypassPermissions"; rewind decides the same way in every mode.
	PermissionMode string
	// HookEventName is "PreToolUse" once decoded, also when the host left
	// it out or names its event otherwise, and "PostToolUse" for an event
	// that reports a call's outcome.
	HookEventName string
	// ToolName is the host's name of the tool: "Bash", "Write",
	// "mcp__vsphere__power_off_vm".
	ToolName string
	// ToolUseID identifies this one tool call.
	ToolUseID string
	// ToolInput is the tool's input, always a JSON object.
	ToolInput json.RawMessage
	// Outcome is set on a post-tool event: how the call ended.
	Outcome *Outcome

	// mcp is set when the host's tool name leaves an MCP server name to be
	// read against the config's servers; see ResolveServers.
	mcp *mcpTool
	// decoded marks an event Decode made, whose ToolInput is valid JSON.
	decoded bool
	// raw is the event as Decode read it.
	raw []byte
	// hostEvent is the host's own name of the event, where a host's
	// answer depends on it (Cursor).
	hostEvent string
}

// Outcome is how a tool call ended, as a host's post-tool event reports
// it.
type Outcome struct {
	// Ran is false when the host says the call never ran: refused, or a
	// shell it could not start.
	Ran bool
	// Failed is set when the host reports the call as failed.
	Failed bool
	// ExitCode is a shell command's exit status, when the host reports
	// one.
	ExitCode *int
	// Error is the host's message for a failed call, cut to
	// maxOutcomeError bytes: a shell's error holds its output.
	Error string
	// Interrupted is set when the call was stopped before it finished.
	Interrupted bool
	// Duration is how long the tool ran, when HasDuration says the host
	// told.
	Duration    time.Duration
	HasDuration bool
}

// maxOutcomeError bounds the error text an Outcome keeps.
const maxOutcomeError = 1000

// failure returns an Outcome for a call the host reports as failed with
// message msg. A shell's failure starts with "Exit code N" when the command
// ran (Claude Code's form); a shell failure without one never started.
func failure(msg string, shell bool) *Outcome {
	o := &Outcome{Ran: true, Failed: true, Error: cut(msg, maxOutcomeError)}
	if shell {
		first, _, _ := strings.Cut(msg, "\n")
		if n, ok := strings.CutPrefix(strings.TrimSpace(first), "Exit code "); ok {
			if code, err := strconv.Atoi(strings.TrimSpace(n)); err == nil {
				o.ExitCode = &code
			}
		} else {
			o.Ran = false
		}
	}
	return o
}

// cut shortens s to at most n bytes, at a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// millis reads a duration in milliseconds, a JSON number, into o.
func (o *Outcome) millis(raw json.RawMessage) {
	var ms float64
	if len(raw) > 0 && json.Unmarshal(raw, &ms) == nil && ms >= 0 && ms < 1e12 {
		o.Duration, o.HasDuration = time.Duration(ms*float64(time.Millisecond)), true
	}
}

// exitOf reads an exit status a host put in a tool's response, under one
// of keys, from raw, which is an object or a string holding one.
func exitOf(raw json.RawMessage, keys ...string) *int {
	obj, err := objectInput("response", raw)
	if err != nil {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return nil
	}
	for _, k := range keys {
		var n float64
		if v, ok := m[k]; ok && json.Unmarshal(v, &n) == nil && n == float64(int(n)) {
			code := int(n)
			return &code
		}
	}
	return nil
}

// Raw returns the event as the host wrote it, for an event Decode read;
// nil for an event made otherwise.
func (e *Event) Raw() []byte { return e.raw }

// Call returns the part of the event the policy judges.
func (e *Event) Call() policy.Call {
	return policy.Call{Tool: e.ToolName, Input: e.ToolInput, Cwd: e.Cwd, InputValid: e.decoded}
}

// ErrTooLarge is returned by Decode for an event over MaxEventSize bytes.
var ErrTooLarge = errors.New("hook event is larger than " + strconv.Itoa(MaxEventSize) + " bytes")

// ErrNotPreToolUse is matched, through errors.Is, by the *EventError Decode
// returns for any event other than PreToolUse.
var ErrNotPreToolUse = errors.New("not a PreToolUse event")

// EventError reports an event of another kind than PreToolUse, which means
// the hook was installed for an event it does not handle.
type EventError struct {
	// Name is the event's hook_event_name.
	Name string
}

func (e *EventError) Error() string {
	name := e.Name
	// The name comes from the input, which may be megabytes long.
	if len(name) > maxNameInError {
		name = name[:maxNameInError] + "..."
	}
	return fmt.Sprintf("hook event %q is not %s", name, preToolUse)
}

// maxNameInError bounds the event name quoted in an error message.
const maxNameInError = 64

// Is makes errors.Is(err, ErrNotPreToolUse) hold for every *EventError.
func (e *EventError) Is(target error) bool { return target == ErrNotPreToolUse }

// MalformedError reports an event that is not a well-formed PreToolUse event:
// invalid JSON, not an object, a field of the wrong type, no tool_name, or a
// tool_input that is not an object. Its message is one line and never quotes
// the event, which may be megabytes long and may hold secrets.
type MalformedError struct {
	// Reason says what is wrong, for a person.
	Reason string
	// Partial is what could still be read of the event, set by Decode
	// when a tool name could be: the call is judged by it.
	Partial *Partial
}

func (e *MalformedError) Error() string { return "malformed hook event: " + e.Reason }

// claudeEvent is Claude Code's PreToolUse input on the wire.
type claudeEvent struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	// The fields of PostToolUse and PostToolUseFailure.
	ToolResponse json.RawMessage `json:"tool_response"`
	Error        string          `json:"error"`
	IsInterrupt  json.RawMessage `json:"is_interrupt"`
	DurationMS   json.RawMessage `json:"duration_ms"`
}

// fields are ce's fields by their keys, for decodeFlat.
func (ce *claudeEvent) fields() map[string]flatField {
	return map[string]flatField{
		"session_id": {str: &ce.SessionID}, "transcript_path": {str: &ce.TranscriptPath}, "cwd": {str: &ce.Cwd},
		"permission_mode": {str: &ce.PermissionMode}, "hook_event_name": {str: &ce.HookEventName},
		"tool_name": {str: &ce.ToolName}, "tool_input": {raw: &ce.ToolInput}, "tool_use_id": {str: &ce.ToolUseID},
		"tool_response": {raw: &ce.ToolResponse}, "error": {str: &ce.Error}, "is_interrupt": {raw: &ce.IsInterrupt},
		"duration_ms": {raw: &ce.DurationMS},
	}
}

// Decode reads one PreToolUse event of host h from r, which must hold
// exactly one JSON object and nothing else but white space.
//
// It reads at most MaxEventSize+1 bytes, so a runaway writer cannot make the
// hook hold an unbounded event in memory; a longer input is ErrTooLarge. An
// event that is not PreToolUse gives an *EventError. An event without
// hook_event_name but with a tool_name is taken as PreToolUse, as older
// clients and hand-written test events send it. Any other defect gives a
// *MalformedError.
func Decode(r io.Reader, h Host) (*Event, error) {
	if err := checkHost(h); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxEventSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading hook event: %w", err)
	}
	if len(data) > MaxEventSize {
		return nil, ErrTooLarge
	}
	ev, err := decodeHost(h, data)
	if err != nil {
		if me, ok := err.(*MalformedError); ok {
			me.Partial = readPartial(h, data)
		}
		return nil, err
	}
	// Every host's ToolInput comes out of json.Unmarshal or json.Valid.
	ev.decoded, ev.raw = true, data
	return ev, nil
}

// claudeFields are the keys of claudeEvent, which checkFieldNames reads
// in their exact spelling, as the host writes them.
var claudeFields = []string{"session_id", "transcript_path", "cwd", "permission_mode",
	"hook_event_name", "tool_name", "tool_input", "tool_use_id", "tool_response", "error", "is_interrupt", "duration_ms"}

func decodeClaude(data []byte) (*Event, error) {
	var ce claudeEvent
	if !decodeFlat(data, ce.fields()) {
		if err := unmarshalEvent(data, &ce, claudeFields...); err != nil {
			return nil, err
		}
	}
	var outcome *Outcome
	switch ce.HookEventName {
	case preToolUse:
	case "":
		if ce.ToolName == "" {
			return nil, &MalformedError{Reason: "no hook_event_name and no tool_name"}
		}
	case "PostToolUse":
		// It fires only for a call that succeeded: a shell command that
		// exits non-zero fires PostToolUseFailure.
		outcome = &Outcome{Ran: true}
		if shellTool(ce.ToolName) {
			zero := 0
			outcome.ExitCode = &zero
			var resp struct {
				Interrupted bool `json:"interrupted"`
			}
			if json.Unmarshal(ce.ToolResponse, &resp) == nil && resp.Interrupted {
				outcome.Interrupted, outcome.ExitCode = true, nil
			}
		}
	case "PostToolUseFailure":
		outcome = failure(ce.Error, shellTool(ce.ToolName))
		var interrupt bool
		if json.Unmarshal(ce.IsInterrupt, &interrupt) == nil && interrupt {
			outcome.Interrupted = true
		}
	default:
		return nil, &EventError{Name: ce.HookEventName}
	}
	if outcome != nil {
		outcome.millis(ce.DurationMS)
	}
	if ce.ToolName == "" {
		return nil, &MalformedError{Reason: "no tool_name"}
	}
	if kind := jsonKind(ce.ToolInput); kind != "object" {
		if kind == "" {
			return nil, &MalformedError{Reason: "no tool_input"}
		}
		return nil, &MalformedError{Reason: "tool_input is " + article(kind) + ", not an object"}
	}
	return &Event{
		SessionID:      ce.SessionID,
		TranscriptPath: ce.TranscriptPath,
		Cwd:            ce.Cwd,
		PermissionMode: ce.PermissionMode,
		HookEventName:  eventName(outcome),
		ToolName:       ce.ToolName,
		ToolUseID:      ce.ToolUseID,
		ToolInput:      ce.ToolInput,
		Outcome:        outcome,
	}, nil
}

// shellTool reports whether a tool, by rewind's name, runs a shell
// command: Bash and the other hosts' shell tools, and PowerShell.
func shellTool(name string) bool { return policy.IsShellTool(name) || policy.IsPowerShellTool(name) }

// eventName is the HookEventName of an event with outcome o (nil for a
// call about to be made).
func eventName(o *Outcome) string {
	if o != nil {
		return postToolUse
	}
	return preToolUse
}

// jsonReason turns an encoding/json error into a short reason that names
// what is wrong without quoting the input.
func jsonReason(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, se)
	case errors.As(err, &te) && te.Field == "":
		return "the event is " + article(te.Value) + ", not a JSON object"
	case errors.As(err, &te):
		return fmt.Sprintf("%s is %s, not a string", te.Field, article(te.Value))
	default:
		return "invalid JSON: " + err.Error()
	}
}

// jsonKind names the kind of the JSON value raw, or returns "" when raw is
// absent or null.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return ""
	default:
		return "number"
	}
}

func article(kind string) string {
	switch kind {
	case "array", "object":
		return "an " + kind
	case "":
		return "nothing"
	default:
		return "a " + kind
	}
}
