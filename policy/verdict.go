package policy

import (
	"encoding/json"
	"fmt"

	"github.com/rewind-dev/rewind/shell"
)

// Effect is what a rule asks for a call. Effects are ordered by severity, so
// that several combine to the largest: Deny > Ask > Protect > None.
type Effect int

const (
	None    Effect = iota // the call changes nothing that matters
	Protect               // the call changes a VM: take a checkpoint first
	Ask                   // a person must confirm the call
	Deny                  // the call must not run
)

var effectNames = [...]string{None: "none", Protect: "protect", Ask: "ask", Deny: "deny"}

// String returns the effect's name as written in the config: "none",
// "protect", "ask" or "deny".
func (e Effect) String() string {
	if e < 0 || int(e) >= len(effectNames) {
		return fmt.Sprintf("Effect(%d)", int(e))
	}
	return effectNames[e]
}

// MarshalText encodes the effect as its name.
func (e Effect) MarshalText() ([]byte, error) {
	if e < 0 || int(e) >= len(effectNames) {
		return nil, fmt.Errorf("invalid effect %d", int(e))
	}
	return []byte(effectNames[e]), nil
}

// UnmarshalText decodes an effect name.
func (e *Effect) UnmarshalText(text []byte) error {
	for i, name := range effectNames {
		if string(text) == name {
			*e = Effect(i)
			return nil
		}
	}
	return fmt.Errorf("unknown effect %q (want none, protect, ask or deny)", text)
}

// Call is one tool call of an agent, as the host reports it.
type Call struct {
	// Tool is the host's tool name: "Bash", "Write", "mcp__vsphere__power_off_vm".
	Tool string
	// Input is the tool's input object.
	Input json.RawMessage
	// Cwd is the directory the call runs in.
	Cwd string
	// InputValid says that Input is known to be valid JSON, as hostio's
	// decoding of an event makes sure: Classify then does not check it
	// again, which for an input of megabytes is a good part of its work.
	InputValid bool
}

// Verdict is the policy's judgement of a call, before any checkpoint is taken.
type Verdict struct {
	Effect Effect
	// Targets are the VM or host names the call changes, as written in the call.
	Targets []string
	// Rule names the rule that decided: its match, name or "catalog:..." origin.
	Rule string
	// Reason says why, for a person and a model.
	Reason string
	// Invocations are the shell commands found, for a shell tool.
	Invocations []shell.Invocation
	// Matches explain the verdict piece by piece: one entry per invocation,
	// PowerShell cmdlet, dynamic command, unparsed part or tool call, with
	// the effect it got on its own.
	Matches []Match
}

// Kind says what a Match judged.
type Kind string

// The kinds of Match.
const (
	KindInvocation Kind = "invocation" // a command the shell would run
	KindCmdlet     Kind = "cmdlet"     // a PowerShell cmdlet: pwsh -Command, the PowerShell tool, code on a Windows host
	KindDynamic    Kind = "dynamic"    // a command whose name is decided at run time
	KindUnparsed   Kind = "unparsed"   // text the shell analysis could not parse
	KindTool       Kind = "tool"       // a non-shell tool call
)

// Match is the judgement of one piece of a call.
type Match struct {
	Kind Kind `json:"kind"`
	// Source is the piece as text: the command's words, the dynamic
	// command's source, the unparsed text or the tool name.
	Source string `json:"source"`
	// Host is the remote host the piece runs on, if any.
	Host string   `json:"host,omitempty"`
	Via  []string `json:"via,omitempty"`
	// Payload is the data the command receives, which no rule reads as
	// commands.
	Payload []string `json:"payload,omitempty"`
	Effect  Effect   `json:"effect"`
	Targets []string `json:"targets,omitempty"`
	// Rule names the rule that matched; it is empty when none did.
	Rule   string `json:"rule,omitempty"`
	Reason string `json:"reason,omitempty"`
}
