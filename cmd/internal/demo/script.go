package demo

import (
	"encoding/json"
	"fmt"
)

// Decision is how the demo names the hook's answer to a call: the rows of
// the decision table a person reads.
type Decision string

// The decisions, as `rewind demo --json` prints them.
const (
	// None: the hook says nothing and the call goes on.
	None Decision = "none"
	// Protect: a checkpoint was confirmed; the call goes on with it behind.
	Protect Decision = "protect"
	// Pending: Zerto took the tag but writes it later; retry then.
	Pending Decision = "pending"
	// Ask: a person must confirm the call.
	Ask Decision = "ask"
	// Deny: the call does not run.
	Deny Decision = "deny"
)

// step is one call of the scripted session.
type step struct {
	// tool and input make the PreToolUse event.
	tool  string
	input map[string]any
	// want is the decision the step is there to show; another one makes the
	// demo fail, so that it doubles as a check of the installed binary.
	want Decision
	// about says what the step shows, for a person.
	about string
}

// call is the step as the table shows it: a shell tool's command, else the
// tool's name and input.
func (s step) call() string {
	if cmd, ok := s.input["command"].(string); ok && s.tool == "Bash" {
		return cmd
	}
	in, _ := json.Marshal(s.input)
	return fmt.Sprintf("%s %s", s.tool, in)
}

func bash(command, description string, want Decision, about string) step {
	return step{
		tool:  "Bash",
		input: map[string]any{"command": command, "description": description},
		want:  want,
		about: about,
	}
}

// script is the agent session, one row of the decision table after another.
var script = []step{
	bash(`git commit -am "docs: never run govc vm.destroy or rm -rf / on a shared host"`,
		"Commit the runbook", None,
		"a commit message quoting dangerous commands: data, never run"),
	bash(`ssh web-01 uptime`,
		"Check web-01's uptime", None,
		"a read-only command on a protected VM passes silently"),
	bash(`ssh web-01 'sudo systemctl restart nginx'`,
		"Restart nginx on web-01", Protect,
		"a change to web-01 (VPG "+fastVPG+", a checkpoint every 0.5 s) runs with a checkpoint behind it"),
	{
		tool:  "mcp__vsphere__power_off_vm",
		input: map[string]any{"vm_name": "erp-01"},
		want:  Pending,
		about: "erp-01's VPG (" + slowVPG + ") is protected at an AWS site, a checkpoint every 630 s: the tag lands after the budget",
	},
	bash(`ssh build-07 'sudo reboot'`,
		"Reboot build-07", Ask,
		"build-07 is not a VM Zerto protects: nothing to rewind to, so a person decides"),
	bash(`govc vm.destroy web-02`,
		"Remove web-02", Deny,
		"no checkpoint brings a destroyed VM back in place"),
	bash(`ssh legacy-01 'sudo apt-get -y upgrade'`,
		"Upgrade legacy-01's packages", Deny,
		"Zerto refuses the checkpoint for legacy-01's VPG ("+refusingVPG+"): without one the call does not run"),
}
