package policy

import (
	"encoding/json"

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

// Call is one tool call of an agent, as the host reports it.
type Call struct {
	// Tool is the host's tool name: "Bash", "Write", "mcp__vsphere__power_off_vm".
	Tool string
	// Input is the tool's input object.
	Input json.RawMessage
	// Cwd is the directory the call runs in.
	Cwd string
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
}
