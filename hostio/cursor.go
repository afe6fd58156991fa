package hostio

import (
	"encoding/json"
	"strings"

	"github.com/rewind-dev/rewind/internal/jsonappend"
)

// cursorEvent is the input of Cursor's hooks on the wire: the unified
// preToolUse, postToolUse and postToolUseFailure, and the older
// beforeShellExecution and beforeMCPExecution.
type cursorEvent struct {
	HookEventName  string          `json:"hook_event_name"`
	ConversationID string          `json:"conversation_id"`
	SessionID      string          `json:"session_id"`
	GenerationID   string          `json:"generation_id"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	TranscriptPath *string         `json:"transcript_path"`
	Command        *string         `json:"command"`
	Cwd            string          `json:"cwd"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	URL            string          `json:"url"`
	// The fields of postToolUse and postToolUseFailure.
	ToolOutput   json.RawMessage `json:"tool_output"`
	Duration     json.RawMessage `json:"duration"`
	ErrorMessage string          `json:"error_message"`
	FailureType  string          `json:"failure_type"`
}

var cursorFields = []string{"hook_event_name", "conversation_id", "session_id", "generation_id", "workspace_roots",
	"transcript_path", "command", "cwd", "tool_name", "tool_input", "tool_use_id", "url",
	"tool_output", "duration", "error_message", "failure_type"}

// Cursor's hook events that rewind handles.
const (
	cursorPreTool     = "preToolUse"
	cursorPostTool    = "postToolUse"
	cursorPostFailure = "postToolUseFailure"
	cursorShell       = "beforeShellExecution"
	cursorMCP         = "beforeMCPExecution"
)

// cursorShellTool is Cursor's name of its shell tool in preToolUse, and
// cursorMCPPrefix the prefix of its MCP tools' names.
const (
	cursorShellTool = "Shell"
	cursorMCPPrefix = "MCP:"
)

// decodeCursor reads a Cursor event. preToolUse names the tool: Shell is
// read as "Bash" (its input has the command), MCP:TOOL as an MCP tool whose
// server the config's servers may name (see Event.ResolveServers), and
// the file tools keep their names, which the policy's file rules match.
// The older beforeShellExecution becomes a "Bash" call with {"command"},
// and beforeMCPExecution an MCP call whose server is found in its URL or
// command line. tool_input is an object, or a string holding one in some
// versions.
func decodeCursor(data []byte) (*Event, error) {
	var ce cursorEvent
	if err := unmarshalEvent(data, &ce, cursorFields...); err != nil {
		return nil, err
	}
	session := ce.ConversationID
	if session == "" {
		session = ce.SessionID
	}
	ev := &Event{SessionID: session, HookEventName: preToolUse, Cwd: ce.Cwd, ToolUseID: ce.ToolUseID, hostEvent: ce.HookEventName}
	if ce.TranscriptPath != nil {
		ev.TranscriptPath = *ce.TranscriptPath
	}
	if ev.Cwd == "" && len(ce.WorkspaceRoots) > 0 {
		ev.Cwd = ce.WorkspaceRoots[0]
	}
	switch ce.HookEventName {
	case cursorPreTool, cursorPostTool, cursorPostFailure:
		if ce.ToolName == "" {
			return nil, &MalformedError{Reason: "no tool_name"}
		}
		input, err := objectInput("tool_input", ce.ToolInput)
		if err != nil {
			return nil, err
		}
		ev.ToolName, ev.ToolInput = ce.ToolName, input
		switch {
		case ce.ToolName == cursorShellTool:
			ev.ToolName = "Bash"
		case strings.HasPrefix(ce.ToolName, cursorMCPPrefix) && len(ce.ToolName) > len(cursorMCPPrefix):
			ev.mcp = &mcpTool{tool: strings.TrimPrefix(ce.ToolName, cursorMCPPrefix)}
			ev.ToolName = ev.mcp.name(nil)
		}
		switch ce.HookEventName {
		case cursorPostTool:
			ev.HookEventName = postToolUse
			ev.Outcome = &Outcome{Ran: true}
			if shellTool(ev.ToolName) {
				ev.Outcome.ExitCode = exitOf(ce.ToolOutput, "exitCode", "exit_code")
			}
			ev.Outcome.millis(ce.Duration)
		case cursorPostFailure:
			ev.HookEventName = postToolUse
			ev.Outcome = &Outcome{Ran: ce.FailureType != "permission_denied", Failed: true,
				Error: cut(ce.ErrorMessage, maxOutcomeError), Interrupted: ce.FailureType == "timeout"}
			ev.Outcome.millis(ce.Duration)
		}
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

func (o cursorOutput) appendJSON(b []byte) []byte {
	start := len(b)
	b = jsonappend.Field(append(b, '{'), "permission", o.Permission)
	b = jsonappend.Field(b, "user_message", o.UserMessage)
	b = jsonappend.Field(b, "agent_message", o.AgentMessage)
	return jsonappend.Close(b, start)
}

// encodeCursor is Cursor's output for d, in answer to ev: a permission of
// deny (or ask, for the older events) with the reason for both the person
// and the agent. preToolUse accepts "ask" but does not enforce it, so
// there an Ask goes out as a deny that says a person must approve. A
// checkpoint's context goes to the agent without a permission, so Cursor's
// own approval settings still apply. Cursor treats output that is not
// JSON as a refusal, so no opinion is {}.
func encodeCursor(ev *Event, d Decision) cursorOutput {
	legacy := ev != nil && (ev.hostEvent == cursorShell || ev.hostEvent == cursorMCP)
	var out cursorOutput
	switch d.Permission {
	case Deny:
		out.Permission = "deny"
		d.Reason = denyReason(d.Reason)
	case Ask:
		if legacy {
			out.Permission = "ask"
		} else {
			out.Permission, d.Reason = "deny", askInstead("Cursor", d.Reason)
		}
	}
	out.UserMessage = joinText(d.Reason, d.SystemMessage)
	out.AgentMessage = joinText(d.Reason, d.Context)
	return out
}
