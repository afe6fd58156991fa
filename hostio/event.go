package hostio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/rewind-dev/rewind/policy"
)

// MaxEventSize is the largest event Decode accepts, in bytes. Real events are
// a few kilobytes; a Write of a large file is the biggest a host sends.
const MaxEventSize = 8 << 20

// preToolUse is the hook_event_name of the only event rewind handles.
const preToolUse = "PreToolUse"

// Event is a host's PreToolUse event: a tool call the agent is about to make.
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
	// HookEventName is always "PreToolUse" once decoded, also when the host
	// left it out.
	HookEventName string
	// ToolName is the host's name of the tool: "Bash", "Write",
	// "mcp__vsphere__power_off_vm".
	ToolName string
	// ToolUseID identifies this one tool call.
	ToolUseID string
	// ToolInput is the tool's input, always a JSON object.
	ToolInput json.RawMessage

	// mcp is set when the host's tool name leaves an MCP server name to be
	// read against the config's servers; see ResolveServers.
	mcp *mcpTool
	// decoded marks an event Decode made, whose ToolInput is valid JSON.
	decoded bool
	// raw is the event as Decode read it.
	raw []byte
}

// Raw returns the event as the host wrote it, for an event Decode read;
// nil for an event made otherwise.
func (e *Event) Raw() []byte { return e.raw }

// Call returns the part of the event the policy judges.
func (e *Event) Call() policy.Call {
	return policy.Call{Tool: e.ToolName, Input: e.ToolInput, Cwd: e.Cwd, InputValid: e.decoded}
}

// ErrTooLarge is returned by Decode for an event over MaxEventSize bytes.
var ErrTooLarge = fmt.Errorf("hook event is larger than %d bytes", MaxEventSize)

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
}

// fields are ce's fields by their keys, for decodeFlat.
func (ce *claudeEvent) fields() map[string]flatField {
	return map[string]flatField{
		"session_id": {str: &ce.SessionID}, "transcript_path": {str: &ce.TranscriptPath}, "cwd": {str: &ce.Cwd},
		"permission_mode": {str: &ce.PermissionMode}, "hook_event_name": {str: &ce.HookEventName},
		"tool_name": {str: &ce.ToolName}, "tool_input": {raw: &ce.ToolInput}, "tool_use_id": {str: &ce.ToolUseID},
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
	"hook_event_name", "tool_name", "tool_input", "tool_use_id"}

func decodeClaude(data []byte) (*Event, error) {
	var ce claudeEvent
	if !decodeFlat(data, ce.fields()) {
		if err := unmarshalEvent(data, &ce, claudeFields...); err != nil {
			return nil, err
		}
	}
	switch ce.HookEventName {
	case preToolUse:
	case "":
		if ce.ToolName == "" {
			return nil, &MalformedError{Reason: "no hook_event_name and no tool_name"}
		}
	default:
		return nil, &EventError{Name: ce.HookEventName}
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
		HookEventName:  preToolUse,
		ToolName:       ce.ToolName,
		ToolUseID:      ce.ToolUseID,
		ToolInput:      ce.ToolInput,
	}, nil
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
