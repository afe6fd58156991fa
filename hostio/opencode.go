package hostio

import (
	"encoding/json"

	"github.com/rewind-dev/rewind/internal/jsonappend"
)

// openCodeEvent is what rewind's OpenCode plugin sends the hook: the
// input of OpenCode's tool.execute.before (and tool.execute.after) plugin
// hooks, with the arguments of the call, the project folder and, after the
// call, the tool's metadata and how long it ran.
type openCodeEvent struct {
	Event      string          `json:"event"`
	Tool       string          `json:"tool"`
	SessionID  string          `json:"sessionID"`
	CallID     string          `json:"callID"`
	Args       json.RawMessage `json:"args"`
	Directory  string          `json:"directory"`
	Metadata   json.RawMessage `json:"metadata"`
	DurationMS json.RawMessage `json:"durationMs"`
}

var openCodeFields = []string{"event", "tool", "sessionID", "callID", "args", "directory", "metadata", "durationMs"}

// OpenCode's plugin hooks that rewind's plugin relays.
const (
	openCodeBefore = "tool.execute.before"
	openCodeAfter  = "tool.execute.after"
)

// openCodeKeys renames the argument keys of OpenCode's file tools to the
// ones the policy's file rules read.
var openCodeKeys = map[string]string{"filePath": "file_path", "oldString": "old_string", "newString": "new_string"}

// decodeOpenCode reads an event of rewind's OpenCode plugin. bash becomes
// "Bash" (its arguments hold the command), write and edit become "Write"
// and "Edit" with Claude Code's argument keys, and a tool whose name starts
// with a configured [[server]] name and "_" is that server's MCP tool (see
// Event.ResolveServers); OpenCode names MCP tools SERVER_TOOL.
func decodeOpenCode(data []byte) (*Event, error) {
	var oe openCodeEvent
	if err := unmarshalEvent(data, &oe, openCodeFields...); err != nil {
		return nil, err
	}
	if oe.Tool == "" {
		return nil, &MalformedError{Reason: "no tool"}
	}
	args := oe.Args
	if jsonKind(args) == "" {
		args = json.RawMessage(`{}`)
	}
	input, err := objectInput("args", args)
	if err != nil {
		return nil, err
	}
	ev := &Event{SessionID: oe.SessionID, ToolUseID: oe.CallID, Cwd: oe.Directory, HookEventName: preToolUse,
		ToolName: oe.Tool, ToolInput: input}
	switch oe.Tool {
	case "bash":
		ev.ToolName = "Bash"
	case "write", "edit":
		ev.ToolName = map[string]string{"write": "Write", "edit": "Edit"}[oe.Tool]
		var m map[string]json.RawMessage
		if json.Unmarshal(input, &m) == nil {
			for from, to := range openCodeKeys {
				if v, ok := m[from]; ok {
					if _, taken := m[to]; !taken {
						m[to] = v
						delete(m, from)
					}
				}
			}
			if b, err := json.Marshal(m); err == nil {
				ev.ToolInput = b
			}
		}
	default:
		ev.mcp = &mcpTool{joined: oe.Tool, bare: true}
	}
	switch oe.Event {
	case openCodeBefore, "":
	case openCodeAfter:
		ev.HookEventName = postToolUse
		ev.Outcome = &Outcome{Ran: true}
		if ev.ToolName == "Bash" {
			ev.Outcome.ExitCode = exitOf(oe.Metadata, "exit", "exitCode")
			ev.Outcome.Failed = ev.Outcome.ExitCode != nil && *ev.Outcome.ExitCode != 0
		}
		ev.Outcome.millis(oe.DurationMS)
	default:
		return nil, &EventError{Name: oe.Event}
	}
	return ev, nil
}

// openCodeOutput is what rewind's OpenCode plugin reads: block refuses
// the call with reason, by throwing it as an error, as OpenCode's plugins
// refuse a tool call.
type openCodeOutput struct {
	Block  bool   `json:"block,omitempty"`
	Reason string `json:"reason,omitempty"`
}

func (o openCodeOutput) appendJSON(b []byte) []byte {
	start := len(b)
	b = append(b, '{')
	if o.Block {
		b = jsonappend.Bool(b, "block", true)
	}
	b = jsonappend.Field(b, "reason", o.Reason)
	return jsonappend.Close(b, start)
}

// encodeOpenCode is the plugin's answer for d. OpenCode has no way for a
// plugin to ask the person, so an Ask is refused with the way to approve
// it; a checkpoint is logged, and said to nobody, since a refusal is all a
// plugin can tell the model before the call.
func encodeOpenCode(d Decision) openCodeOutput {
	if why, refused := refusal(OpenCode, d); refused {
		return openCodeOutput{Block: true, Reason: why}
	}
	return openCodeOutput{}
}
