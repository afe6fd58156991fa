package hostio

import (
	"encoding/json"
	"strings"

	"github.com/rewind-dev/rewind/internal/jsonappend"
)

// geminiEvent is Gemini CLI's BeforeTool input on the wire.
type geminiEvent struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	Timestamp      string          `json:"timestamp"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	MCPContext     *geminiMCP      `json:"mcp_context"`
}

// geminiMCP is the mcp_context Gemini CLI adds to an MCP tool's event.
type geminiMCP struct {
	ServerName string `json:"server_name"`
	ToolName   string `json:"tool_name"`
}

var geminiFields = []string{"session_id", "transcript_path", "cwd", "hook_event_name", "timestamp",
	"tool_name", "tool_input", "mcp_context"}

// geminiBeforeTool is the name of Gemini CLI's event before a tool runs.
const geminiBeforeTool = "BeforeTool"

// geminiTools maps Gemini CLI's built-in tools to the Claude Code tools
// whose input they share, so that one set of rules judges both: the shell
// tool takes {"command"}, write_file {"file_path","content"} and replace
// {"file_path","old_string","new_string"}.
var geminiTools = map[string]string{
	"run_shell_command": "Bash",
	"write_file":        "Write",
	"replace":           "Edit",
}

// decodeGemini reads Gemini CLI's BeforeTool event. Its MCP tools are named
// mcp_SERVER_TOOL by some versions and mcp__SERVER__TOOL by others; the
// event's mcp_context, when present, names the server and tool exactly.
// Otherwise the single-underscore form is resolved against the configured
// servers (see Event.ResolveServers).
func decodeGemini(data []byte) (*Event, error) {
	var ge geminiEvent
	if err := unmarshalEvent(data, &ge, geminiFields...); err != nil {
		return nil, err
	}
	if err := checkEventName(ge.HookEventName, geminiBeforeTool, ge.ToolName); err != nil {
		return nil, err
	}
	input, err := objectInput("tool_input", ge.ToolInput)
	if err != nil {
		return nil, err
	}
	ev := &Event{
		SessionID:      ge.SessionID,
		TranscriptPath: ge.TranscriptPath,
		Cwd:            ge.Cwd,
		HookEventName:  preToolUse,
		ToolName:       ge.ToolName,
		ToolInput:      input,
	}
	switch mc := ge.MCPContext; {
	case mc != nil && mc.ServerName != "" && mc.ToolName != "":
		ev.ToolName = "mcp__" + mc.ServerName + "__" + mc.ToolName
	case strings.HasPrefix(ge.ToolName, "mcp__"):
	case strings.HasPrefix(ge.ToolName, "mcp_") && len(ge.ToolName) > len("mcp_"):
		ev.mcp = &mcpTool{joined: strings.TrimPrefix(ge.ToolName, "mcp_")}
		ev.ToolName = ev.mcp.name(nil)
	default:
		if name, ok := geminiTools[ge.ToolName]; ok {
			ev.ToolName = name
		}
	}
	return ev, nil
}

// geminiOutput is Gemini CLI's hook output on the wire.
type geminiOutput struct {
	Decision           string          `json:"decision,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	HookSpecificOutput *geminiSpecific `json:"hookSpecificOutput,omitempty"`
	SystemMessage      string          `json:"systemMessage,omitempty"`
}

type geminiSpecific struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

func (o geminiOutput) appendJSON(b []byte) []byte {
	start := len(b)
	b = jsonappend.Field(append(b, '{'), "decision", o.Decision)
	b = jsonappend.Field(b, "reason", o.Reason)
	if h := o.HookSpecificOutput; h != nil {
		b = append(jsonappend.Key(b, "hookSpecificOutput"), `{"hookEventName":`...)
		b = jsonappend.String(b, h.HookEventName)
		b = append(jsonappend.String(append(b, `,"additionalContext":`...), h.AdditionalContext), '}')
	}
	b = jsonappend.Field(b, "systemMessage", o.SystemMessage)
	return jsonappend.Close(b, start)
}

// encodeGemini is Gemini CLI's output for d: {"decision":"deny","reason"}
// to refuse, hookSpecificOutput.additionalContext for the model, and
// systemMessage for the person. Gemini CLI documents no "ask" for
// BeforeTool, so Ask goes out as a deny that says a person must approve.
// Gemini CLI parses the output of every hook as JSON, so no opinion is {}.
func encodeGemini(d Decision) output {
	out := geminiOutput{SystemMessage: d.SystemMessage}
	switch d.Permission {
	case Deny:
		out.Decision, out.Reason = "deny", denyReason(d.Reason)
	case Ask:
		out.Decision, out.Reason = "deny", askInstead("Gemini CLI", d.Reason)
	default:
		d.Context = joinText(d.Reason, d.Context)
	}
	if d.Context != "" {
		out.HookSpecificOutput = &geminiSpecific{HookEventName: geminiBeforeTool, AdditionalContext: d.Context}
	}
	return out
}
