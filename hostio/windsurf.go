package hostio

import "encoding/json"

// windsurfEvent is the input of Windsurf's pre-hooks on the wire: the
// action, and its details in tool_info.
type windsurfEvent struct {
	AgentActionName string          `json:"agent_action_name"`
	TrajectoryID    string          `json:"trajectory_id"`
	ExecutionID     string          `json:"execution_id"`
	ToolInfo        json.RawMessage `json:"tool_info"`
}

var windsurfFields = []string{"agent_action_name", "trajectory_id", "execution_id", "timestamp", "model_name", "tool_info"}

// Windsurf's pre-hooks that rewind handles.
const (
	windsurfCommand = "pre_run_command"
	windsurfMCP     = "pre_mcp_tool_use"
	windsurfWrite   = "pre_write_code"
)

// decodeWindsurf reads a Windsurf pre-hook event: pre_run_command becomes
// a "Bash" call with {"command"} in its cwd, pre_mcp_tool_use the MCP call
// mcp__SERVER__TOOL with its arguments, and pre_write_code a "Write" of
// its file_path.
func decodeWindsurf(data []byte) (*Event, error) {
	var we windsurfEvent
	if err := unmarshalEvent(data, &we, windsurfFields...); err != nil {
		return nil, err
	}
	info, err := objectInput("tool_info", we.ToolInfo)
	if err != nil {
		return nil, err
	}
	ev := &Event{SessionID: we.TrajectoryID, ToolUseID: we.ExecutionID, HookEventName: preToolUse}
	switch we.AgentActionName {
	case windsurfCommand:
		var ti struct {
			CommandLine *string `json:"command_line"`
			Cwd         string  `json:"cwd"`
		}
		if err := json.Unmarshal(info, &ti); err != nil || ti.CommandLine == nil {
			return nil, &MalformedError{Reason: "tool_info has no command_line string"}
		}
		if err := checkFieldNames(info, "command_line", "cwd"); err != nil {
			return nil, err
		}
		if ev.ToolInput, err = commandInput(*ti.CommandLine); err != nil {
			return nil, err
		}
		ev.ToolName, ev.Cwd = "Bash", ti.Cwd
	case windsurfMCP:
		var ti struct {
			Server string          `json:"mcp_server_name"`
			Tool   string          `json:"mcp_tool_name"`
			Args   json.RawMessage `json:"mcp_tool_arguments"`
		}
		if err := json.Unmarshal(info, &ti); err != nil || ti.Server == "" || ti.Tool == "" {
			return nil, &MalformedError{Reason: "tool_info has no mcp_server_name and mcp_tool_name"}
		}
		if err := checkFieldNames(info, "mcp_server_name", "mcp_tool_name", "mcp_tool_arguments"); err != nil {
			return nil, err
		}
		if len(ti.Args) == 0 || jsonKind(ti.Args) == "" {
			ti.Args = json.RawMessage(`{}`)
		}
		if ev.ToolInput, err = objectInput("mcp_tool_arguments", ti.Args); err != nil {
			return nil, err
		}
		ev.ToolName = "mcp__" + ti.Server + "__" + ti.Tool
	case windsurfWrite:
		ev.ToolName, ev.ToolInput = "Write", info
	case "":
		return nil, &MalformedError{Reason: "no agent_action_name"}
	default:
		return nil, &EventError{Name: we.AgentActionName}
	}
	return ev, nil
}
