package hostio

import "encoding/json"

// cursorEvent is the input of Cursor's beforeShellExecution and
// beforeMCPExecution hooks on the wire.
type cursorEvent struct {
	HookEventName  string          `json:"hook_event_name"`
	ConversationID string          `json:"conversation_id"`
	GenerationID   string          `json:"generation_id"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	Command        *string         `json:"command"`
	Cwd            string          `json:"cwd"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	URL            string          `json:"url"`
}

var cursorFields = []string{"hook_event_name", "conversation_id", "generation_id", "workspace_roots",
	"command", "cwd", "tool_name", "tool_input", "url"}

// Cursor's hook events that rewind handles.
const (
	cursorShell = "beforeShellExecution"
	cursorMCP   = "beforeMCPExecution"
)

// decodeCursor reads a Cursor event. A shell command becomes a "Bash" call
// with {"command"}. An MCP call names only the tool and the server's URL or
// command line; the server's name is found among the configured servers
// (see Event.ResolveServers). Its tool_input is an object, or a string
// holding one in some versions.
func decodeCursor(data []byte) (*Event, error) {
	var ce cursorEvent
	if err := unmarshalEvent(data, &ce, cursorFields...); err != nil {
		return nil, err
	}
	ev := &Event{SessionID: ce.ConversationID, HookEventName: preToolUse, Cwd: ce.Cwd}
	if ev.Cwd == "" && len(ce.WorkspaceRoots) > 0 {
		ev.Cwd = ce.WorkspaceRoots[0]
	}
	switch ce.HookEventName {
	case cursorShell:
		if ce.Command == nil {
			return nil, &MalformedError{Reason: "no command"}
		}
		input, err := json.Marshal(struct {
			Command string `json:"command"`
		}{*ce.Command})
		if err != nil {
			return nil, &MalformedError{Reason: "command cannot be re-encoded: " + err.Error()}
		}
		ev.ToolName, ev.ToolInput = "Bash", input
	case cursorMCP:
		if ce.ToolName == "" {
			return nil, &MalformedError{Reason: "no tool_name"}
		}
		input, err := objectInput("tool_input", ce.ToolInput)
		if err != nil {
			return nil, err
		}
		ev.mcp = &mcpTool{tool: ce.ToolName}
		for _, h := range []string{ce.URL, deref(ce.Command)} {
			if h != "" {
				ev.mcp.hints = append(ev.mcp.hints, h)
			}
		}
		ev.ToolName, ev.ToolInput = ev.mcp.name(nil), input
	case "":
		return nil, &MalformedError{Reason: "no hook_event_name"}
	default:
		return nil, &EventError{Name: ce.HookEventName}
	}
	return ev, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// cursorOutput is Cursor's hook output on the wire.
type cursorOutput struct {
	Permission   string `json:"permission,omitempty"`
	UserMessage  string `json:"user_message,omitempty"`
	AgentMessage string `json:"agent_message,omitempty"`
}

// encodeCursor is Cursor's output for d: a permission of deny or ask with
// the reason for both the person and the agent. A checkpoint's context goes
// to the agent without a permission, so Cursor's own approval settings still
// apply. Cursor treats output that is not JSON as a refusal, so no opinion
// is {}.
func encodeCursor(d Decision) cursorOutput {
	var out cursorOutput
	switch d.Permission {
	case Deny:
		out.Permission = "deny"
		d.Reason = denyReason(d.Reason)
	case Ask:
		out.Permission = "ask"
	}
	out.UserMessage = joinText(d.Reason, d.SystemMessage)
	out.AgentMessage = joinText(d.Reason, d.Context)
	return out
}
