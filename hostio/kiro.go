package hostio

import (
	"encoding/json"
	"strings"
)

// kiroEvent is Kiro CLI's preToolUse input on the wire.
type kiroEvent struct {
	HookEventName string          `json:"hook_event_name"`
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
}

var kiroFields = []string{"hook_event_name", "session_id", "cwd", "tool_name", "tool_input"}

// kiroTools maps Kiro CLI's shell tools, by their older and newer names,
// to "Bash": both take {"command"}.
var kiroTools = map[string]string{
	"execute_bash": "Bash",
	"shell":        "Bash",
}

// decodeKiro reads Kiro CLI's preToolUse event. Its MCP tools are named
// @SERVER/TOOL, read as mcp__SERVER__TOOL.
func decodeKiro(data []byte) (*Event, error) {
	var ke kiroEvent
	if err := unmarshalEvent(data, &ke, kiroFields...); err != nil {
		return nil, err
	}
	name := ke.HookEventName
	if strings.EqualFold(name, preToolUse) {
		name = preToolUse
	}
	if err := checkEventName(name, preToolUse, ke.ToolName); err != nil {
		return nil, err
	}
	input, err := objectInput("tool_input", ke.ToolInput)
	if err != nil {
		return nil, err
	}
	tool := ke.ToolName
	if n, ok := kiroTools[tool]; ok {
		tool = n
	} else if server, t, ok := strings.Cut(strings.TrimPrefix(tool, "@"), "/"); ok && strings.HasPrefix(tool, "@") && server != "" && t != "" {
		tool = "mcp__" + server + "__" + t
	}
	return &Event{SessionID: ke.SessionID, Cwd: ke.Cwd, HookEventName: preToolUse, ToolName: tool, ToolInput: input}, nil
}
