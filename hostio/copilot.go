package hostio

import (
	"encoding/json"
	"strings"

	"github.com/rewind-dev/rewind/internal/jsonappend"
)

// copilotEvent is GitHub Copilot's preToolUse input on the wire (the CLI and
// the cloud agent).
type copilotEvent struct {
	SessionID string          `json:"sessionId"`
	Timestamp json.RawMessage `json:"timestamp"`
	Cwd       string          `json:"cwd"`
	ToolName  string          `json:"toolName"`
	ToolArgs  json.RawMessage `json:"toolArgs"`
}

var copilotFields = []string{"sessionId", "timestamp", "cwd", "toolName", "toolArgs"}

// copilotTools maps Copilot's built-in tools to the Claude Code tools whose
// input they share: its shell tools take {"command"}, bash on Unix and
// powershell on Windows.
var copilotTools = map[string]string{
	"bash":       "Bash",
	"powershell": "PowerShell",
}

// decodeCopilot reads Copilot's event. toolArgs is a string holding a JSON
// object in the CLI's hook reference and an object in the SDK; both are
// read. The event has no name: every event of a preToolUse hook is one.
func decodeCopilot(data []byte) (*Event, error) {
	var ce copilotEvent
	if err := unmarshalEvent(data, &ce, copilotFields...); err != nil {
		return nil, err
	}
	if ce.ToolName == "" {
		return nil, &MalformedError{Reason: "no toolName"}
	}
	input, err := objectInput("toolArgs", ce.ToolArgs)
	if err != nil {
		return nil, err
	}
	name := ce.ToolName
	if n, ok := copilotTools[strings.ToLower(name)]; ok {
		name = n
	}
	return &Event{SessionID: ce.SessionID, HookEventName: preToolUse, Cwd: ce.Cwd, ToolName: name, ToolInput: input}, nil
}

// copilotOutput is Copilot's hook output on the wire: flat.
type copilotOutput struct {
	PermissionDecision       Permission `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string     `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string     `json:"additionalContext,omitempty"`
}

func (o copilotOutput) appendJSON(b []byte) []byte {
	start := len(b)
	b = jsonappend.Field(append(b, '{'), "permissionDecision", string(o.PermissionDecision))
	b = jsonappend.Field(b, "permissionDecisionReason", o.PermissionDecisionReason)
	b = jsonappend.Field(b, "additionalContext", o.AdditionalContext)
	return jsonappend.Close(b, start)
}

// encodeCopilot is Copilot's output for d, nil for no opinion. Copilot has
// no message for the person apart from the reason, so a warning goes there
// or, without a decision, into the context.
func encodeCopilot(d Decision) output {
	if d == (Decision{}) {
		return nil
	}
	out := copilotOutput{PermissionDecision: d.Permission, PermissionDecisionReason: d.Reason, AdditionalContext: d.Context}
	switch d.Permission {
	case Deny:
		out.PermissionDecisionReason = joinText(denyReason(d.Reason), d.SystemMessage)
	case Ask:
		out.PermissionDecisionReason = joinText(d.Reason, d.SystemMessage)
	default:
		out.PermissionDecision = ""
		out.PermissionDecisionReason = ""
		out.AdditionalContext = joinText(joinText(d.SystemMessage, d.Reason), d.Context)
	}
	if out == (copilotOutput{}) {
		return nil
	}
	return out
}
