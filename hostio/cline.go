package hostio

import (
	"encoding/json"
	"strings"

	"github.com/rewind-dev/rewind/internal/jsonappend"
)

// clineEvent is Cline's PreToolUse input on the wire.
type clineEvent struct {
	HookName       string   `json:"hookName"`
	TaskID         string   `json:"taskId"`
	WorkspaceRoots []string `json:"workspaceRoots"`
	PreToolUse     *struct {
		ToolName   string          `json:"toolName"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"preToolUse"`
}

var clineFields = []string{"clineVersion", "hookName", "timestamp", "taskId", "workspaceRoots", "userId", "preToolUse"}

// decodeCline reads Cline's PreToolUse event. execute_command becomes a
// "Bash" call with {"command"}; use_mcp_tool the MCP call
// mcp__SERVER__TOOL, with the JSON of its arguments; write_to_file and
// replace_in_file a "Write" and an "Edit" of their path, as file_path.
// Other tools keep their names and parameters.
func decodeCline(data []byte) (*Event, error) {
	var ce clineEvent
	if err := unmarshalEvent(data, &ce, clineFields...); err != nil {
		return nil, err
	}
	if ce.HookName != "" && ce.HookName != preToolUse {
		return nil, &EventError{Name: ce.HookName}
	}
	if ce.PreToolUse == nil || ce.PreToolUse.ToolName == "" {
		return nil, &MalformedError{Reason: "no preToolUse.toolName"}
	}
	params, err := objectInput("preToolUse.parameters", ce.PreToolUse.Parameters)
	if err != nil {
		return nil, err
	}
	ev := &Event{SessionID: ce.TaskID, HookEventName: preToolUse, ToolName: ce.PreToolUse.ToolName, ToolInput: params}
	if len(ce.WorkspaceRoots) > 0 {
		ev.Cwd = ce.WorkspaceRoots[0]
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &MalformedError{Reason: "preToolUse.parameters is not an object"}
	}
	str := func(key string) (string, bool) {
		var s string
		return s, json.Unmarshal(p[key], &s) == nil
	}
	switch ce.PreToolUse.ToolName {
	case "execute_command":
		command, ok := str("command")
		if !ok {
			return nil, &MalformedError{Reason: "execute_command has no command string"}
		}
		if ev.ToolInput, err = commandInput(command); err != nil {
			return nil, err
		}
		ev.ToolName = "Bash"
	case "use_mcp_tool":
		server, _ := str("server_name")
		tool, _ := str("tool_name")
		if server == "" || tool == "" {
			return nil, &MalformedError{Reason: "use_mcp_tool has no server_name and tool_name"}
		}
		args := json.RawMessage(`{}`)
		if raw, ok := p["arguments"]; ok && jsonKind(raw) != "" {
			if args, err = objectInput("arguments", raw); err != nil {
				return nil, err
			}
		}
		ev.ToolName, ev.ToolInput = "mcp__"+server+"__"+tool, args
	case "write_to_file", "replace_in_file":
		path, ok := str("path")
		if !ok {
			return nil, &MalformedError{Reason: ce.PreToolUse.ToolName + " has no path string"}
		}
		in := map[string]string{"file_path": path}
		ev.ToolName = "Write"
		if strings.HasPrefix(ce.PreToolUse.ToolName, "replace") {
			ev.ToolName = "Edit"
		}
		b, _ := json.Marshal(in)
		ev.ToolInput = b
	}
	return ev, nil
}

// clineOutput is Cline's hook output on the wire.
type clineOutput struct {
	Cancel              bool   `json:"cancel"`
	ContextModification string `json:"contextModification,omitempty"`
	ErrorMessage        string `json:"errorMessage,omitempty"`
}

func (o clineOutput) appendJSON(b []byte) []byte {
	start := len(b)
	b = jsonappend.Bool(append(b, '{'), "cancel", o.Cancel)
	b = jsonappend.Field(b, "contextModification", o.ContextModification)
	b = jsonappend.Field(b, "errorMessage", o.ErrorMessage)
	return jsonappend.Close(b, start)
}

// encodeCline is Cline's output for d: cancel with the message for the
// person to refuse, else the checkpoint or a warning as context for the
// model's next step. Cline asks no person for a hook, so an Ask is
// refused with the way to approve it.
func encodeCline(d Decision) clineOutput {
	if why, refused := refusal(Cline, d); refused {
		return clineOutput{Cancel: true, ErrorMessage: why}
	}
	return clineOutput{ContextModification: joinText(joinText(d.SystemMessage, d.Reason), d.Context)}
}
