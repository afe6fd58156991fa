package hostio

import "encoding/json"

// codexEvent is Codex CLI's PreToolUse input on the wire: Claude Code's
// shape, plus the turn and the model.
type codexEvent struct {
	SessionID      string          `json:"session_id"`
	TurnID         string          `json:"turn_id"`
	TranscriptPath *string         `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	Model          string          `json:"model"`
	PermissionMode string          `json:"permission_mode"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolResponse   json.RawMessage `json:"tool_response"`
}

var codexFields = []string{"session_id", "turn_id", "transcript_path", "cwd", "model", "permission_mode",
	"hook_event_name", "tool_name", "tool_input", "tool_use_id", "tool_response"}

// decodeCodex reads Codex's event. Its shell tool is "Bash" with
// {"command": ...} and its MCP tools are mcp__SERVER__TOOL, as in Claude
// Code, so the names pass through unchanged. Its PostToolUse event carries
// the tool's response, in which a shell's exit status is read when it is
// there.
func decodeCodex(data []byte) (*Event, error) {
	var ce codexEvent
	if err := unmarshalEvent(data, &ce, codexFields...); err != nil {
		return nil, err
	}
	var outcome *Outcome
	if ce.HookEventName == postToolUse {
		if ce.ToolName == "" {
			return nil, &MalformedError{Reason: "no tool_name"}
		}
		outcome = &Outcome{Ran: true}
		if shellTool(ce.ToolName) {
			outcome.ExitCode = exitOf(ce.ToolResponse, "exit_code", "exitCode")
			outcome.Failed = outcome.ExitCode != nil && *outcome.ExitCode != 0
		}
	} else if err := checkEventName(ce.HookEventName, preToolUse, ce.ToolName); err != nil {
		return nil, err
	}
	input, err := objectInput("tool_input", ce.ToolInput)
	if err != nil {
		return nil, err
	}
	ev := &Event{
		SessionID:      ce.SessionID,
		Cwd:            ce.Cwd,
		PermissionMode: ce.PermissionMode,
		HookEventName:  eventName(outcome),
		ToolName:       ce.ToolName,
		ToolUseID:      ce.ToolUseID,
		ToolInput:      input,
		Outcome:        outcome,
	}
	if ce.TranscriptPath != nil {
		ev.TranscriptPath = *ce.TranscriptPath
	}
	return ev, nil
}

// checkEventName accepts the event name want, or no name when the event has
// a tool, and rejects any other event.
func checkEventName(name, want, tool string) error {
	switch name {
	case want:
	case "":
		if tool == "" {
			return &MalformedError{Reason: "no hook_event_name and no tool_name"}
		}
	default:
		return &EventError{Name: name}
	}
	if tool == "" {
		return &MalformedError{Reason: "no tool_name"}
	}
	return nil
}

// encodeCodex is Codex's output for d. Codex reads Claude Code's
// hookSpecificOutput, with three differences that would otherwise make it
// discard the answer and run the call: it has no "ask", a deny needs a
// reason, and "allow" is only valid with a rewritten input. So Ask goes out
// as a deny that says a person must approve, and Allow as no opinion.
func encodeCodex(d Decision) output {
	switch d.Permission {
	case Ask:
		d.Permission, d.Reason = Deny, askInstead("Codex", d.Reason)
	case Deny:
		d.Reason = denyReason(d.Reason)
	case Allow:
		d.Permission = NoOpinion
	}
	if d.Permission == NoOpinion {
		// A reason without a decision is invalid to Codex; it goes to the
		// model as context instead.
		if d.Reason != "" {
			d.Context = joinText(d.Reason, d.Context)
		}
		d.Reason = ""
	}
	return encodeClaude(d)
}

// joinText joins two texts with a blank line, leaving out an empty one.
func joinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}
