package hostio

import (
	"encoding/json"

	"github.com/rewind-dev/rewind/internal/jsonappend"
)

// antigravityEvent is Antigravity CLI's PreToolUse input on the wire:
// camelCase, with the tool call in toolCall and its arguments in
// PascalCase.
type antigravityEvent struct {
	HookEventName  string          `json:"hookEventName"`
	ConversationID string          `json:"conversationId"`
	StepIdx        json.RawMessage `json:"stepIdx"`
	ToolCall       *struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"toolCall"`
	TranscriptPath string   `json:"transcriptPath"`
	WorkspacePaths []string `json:"workspacePaths"`
}

var antigravityFields = []string{"hookEventName", "conversationId", "stepIdx", "toolCall", "transcriptPath",
	"workspacePaths", "artifactDirectoryPath"}

// antigravityShell is Antigravity CLI's shell tool, whose arguments hold
// the command line in CommandLine and the folder in Cwd.
const antigravityShell = "run_command"

// decodeAntigravity reads Antigravity CLI's PreToolUse event. run_command
// becomes a "Bash" call with {"command"}, in its Cwd or else the first
// workspace path; other tools keep their names and arguments.
func decodeAntigravity(data []byte) (*Event, error) {
	var ae antigravityEvent
	if err := unmarshalEvent(data, &ae, antigravityFields...); err != nil {
		return nil, err
	}
	if ae.HookEventName != "" && ae.HookEventName != preToolUse {
		return nil, &EventError{Name: ae.HookEventName}
	}
	if ae.ToolCall == nil || ae.ToolCall.Name == "" {
		return nil, &MalformedError{Reason: "no toolCall.name"}
	}
	args, err := objectInput("toolCall.args", ae.ToolCall.Args)
	if err != nil {
		return nil, err
	}
	ev := &Event{SessionID: ae.ConversationID, TranscriptPath: ae.TranscriptPath, HookEventName: preToolUse,
		ToolName: ae.ToolCall.Name, ToolInput: args}
	if len(ae.WorkspacePaths) > 0 {
		ev.Cwd = ae.WorkspacePaths[0]
	}
	if ae.ToolCall.Name == antigravityShell {
		var a struct {
			CommandLine *string `json:"CommandLine"`
			Cwd         string  `json:"Cwd"`
		}
		if err := json.Unmarshal(args, &a); err != nil || a.CommandLine == nil {
			return nil, &MalformedError{Reason: "run_command has no CommandLine string"}
		}
		if err := checkFieldNames(args, "CommandLine", "Cwd"); err != nil {
			return nil, err
		}
		if ev.ToolInput, err = commandInput(*a.CommandLine); err != nil {
			return nil, err
		}
		ev.ToolName = "Bash"
		if a.Cwd != "" {
			ev.Cwd = a.Cwd
		}
	}
	return ev, nil
}

// commandInput is the {"command"} input of a shell call.
func commandInput(command string) (json.RawMessage, error) {
	b, err := json.Marshal(struct {
		Command string `json:"command"`
	}{command})
	if err != nil {
		return nil, &MalformedError{Reason: "command cannot be re-encoded: " + err.Error()}
	}
	return b, nil
}

// antigravityOutput is Antigravity CLI's hook output on the wire.
type antigravityOutput struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
}

func (o antigravityOutput) appendJSON(b []byte) []byte {
	b = jsonappend.String(append(b, `{"decision":`...), o.Decision)
	return append(jsonappend.Field(b, "reason", o.Reason), '}')
}

// encodeAntigravity is Antigravity CLI's output for d. Antigravity CLI
// refuses a call whose hook answers without a decision, so every answer
// has one: "allow" leaves the call to Antigravity's own permission
// settings (it does not skip its confirmation), "force_ask" asks the
// person even where they once chose "always allow", and "deny" refuses.
func encodeAntigravity(d Decision) antigravityOutput {
	switch d.Permission {
	case Deny:
		return antigravityOutput{Decision: "deny", Reason: joinText(denyReason(d.Reason), d.SystemMessage)}
	case Ask:
		if d.Reason == "" {
			d.Reason = "rewind: this call needs a person's approval"
		}
		return antigravityOutput{Decision: "force_ask", Reason: joinText(d.Reason, d.SystemMessage)}
	}
	return antigravityOutput{Decision: "allow", Reason: joinText(joinText(d.SystemMessage, d.Reason), d.Context)}
}
