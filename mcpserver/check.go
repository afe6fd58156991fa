package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hook"
	"github.com/rewind-dev/rewind/hook/zerto"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
)

// host names the MCP server in the audit log's host column.
const host hostio.Host = "mcp"

// CheckInput is a tool call to check: a shell command, or a tool and its input.
type CheckInput struct {
	Command string         `json:"command,omitempty" jsonschema:"a shell command, checked as the Bash tool would run it; give this or tool"`
	Tool    string         `json:"tool,omitempty" jsonschema:"the host's name of the tool to check, such as Bash, Write or mcp__vsphere__power_off_vm; give this or command"`
	Input   map[string]any `json:"input,omitempty" jsonschema:"the input the tool would get, as a JSON object (for Bash: {\"command\": \"...\"})"`
}

// CheckOutput is rewind's verdict on a call and what the hook does with it.
type CheckOutput struct {
	Verdict     string       `json:"verdict" jsonschema:"the policy's verdict: none (changes nothing that matters), protect (changes a VM: needs a checkpoint), ask or deny"`
	Decision    string       `json:"decision" jsonschema:"the hook's decision: none or protected (the call may run), pending (the checkpoint is on its way: retry the call after it lands), ask (a person must confirm), deny (the call must not run), or allow-on-error, ask-on-error, deny-on-error when rewind itself failed"`
	Answer      string       `json:"answer" jsonschema:"what the host is told when the call is made: pass (no objection; the host's own permission rules apply), ask or deny"`
	Reason      string       `json:"reason,omitempty" jsonschema:"why, in the words the hook uses: the rule's reason, Zerto's message, or the checkpoint that undoes the call"`
	Rule        string       `json:"rule,omitempty" jsonschema:"the rule that decided"`
	Targets     []string     `json:"targets,omitempty" jsonschema:"the VMs or hosts the call changes, as written in it"`
	Checkpoints []Checkpoint `json:"checkpoints,omitempty" jsonschema:"for a protected call: the checkpoint per VPG that undoes it; the hook reuses it when the call is made soon (within capture.reuse_within)"`
	AuditID     string       `json:"audit_id,omitempty" jsonschema:"the decision log's ID of this check, for zerto_rewind and rewind undo"`
	Warning     string       `json:"warning,omitempty" jsonschema:"a warning the hook would show the person"`
	Steps       []Step       `json:"steps,omitempty" jsonschema:"each command that would run (or the tool), with the verdict it got on its own"`
}

// Checkpoint is a tagged checkpoint in a VPG's journal.
type Checkpoint struct {
	VPG           string   `json:"vpg" jsonschema:"the VPG's name"`
	VPGIdentifier string   `json:"vpg_identifier,omitempty" jsonschema:"Zerto's VpgIdentifier"`
	VMs           []string `json:"vms,omitempty" jsonschema:"the VMs of the call in that VPG"`
	Tag           string   `json:"tag,omitempty" jsonschema:"the checkpoint's tag, as Zerto's console shows it"`
	Identifier    string   `json:"identifier,omitempty" jsonschema:"Zerto's CheckpointIdentifier; empty while the tag is pending"`
	Time          string   `json:"time,omitempty" jsonschema:"the checkpoint's time in the journal (ZVM clock, RFC 3339)"`
}

// Step is one piece of a checked call.
type Step struct {
	Verdict string   `json:"verdict" jsonschema:"none, protect, ask or deny"`
	Kind    string   `json:"kind" jsonschema:"invocation (a command that would run), cmdlet, dynamic (a command name only known at run time), unparsed, or tool"`
	Source  string   `json:"source" jsonschema:"the command as written"`
	Host    string   `json:"host,omitempty" jsonschema:"the host it runs on, for a command run through ssh"`
	Rule    string   `json:"rule,omitempty"`
	Reason  string   `json:"reason,omitempty"`
	Targets []string `json:"targets,omitempty"`
}

func (s *Server) addCheck() {
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:  "zerto_check_tool",
		Title: "Check a tool call with rewind",
		Description: `Checks a tool call before it is made, exactly as rewind's PreToolUse hook will judge it, and says what the hook will do: let it pass, ask the person, or deny it, with the reasons.
For a call that changes a VM Zerto protects (verdict protect), it takes the checkpoint the hook needs now and names it (tag, CheckpointIdentifier, VPG): make the call soon after and the hook reuses that checkpoint instead of waiting for another. If Zerto cannot write the checkpoint, the decision is deny with Zerto's own message, and the call would not run either.
Give a shell command in "command", or a tool name in "tool" with its "input".`,
		Annotations: &mcp.ToolAnnotations{Title: "Check a tool call", IdempotentHint: false, DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
	}, s.check)
}

func (s *Server) check(ctx context.Context, _ *mcp.CallToolRequest, in CheckInput) (*mcp.CallToolResult, CheckOutput, error) {
	ev, err := checkEvent(in, s.dir())
	if err != nil {
		return nil, CheckOutput{}, err
	}
	res := hook.Decide(ctx, ev, hook.Options{
		Host:       host,
		ConfigPath: s.o.ConfigPath,
		Getenv:     s.o.Getenv,
		Logger:     s.o.Logger,
		Advice:     true,
		Protect:    zerto.Step{},
	})
	out := checkOutput(res)
	// Only a checkpoint is worth a line in the decision log: it is a rewind
	// point. The rest is advice on a call that has not been made; the hook
	// logs the call when it is.
	if res.Record != nil && len(res.Record.Checkpoints) > 0 {
		res.Record.Decision = audit.DecisionCheckpoint
		if err := s.appendAudit(ctx, res.Record); err != nil {
			s.o.Logger.Warn("audit log", "err", err)
			out.Warning = join(out.Warning, "the decision log could not be written: "+err.Error())
			out.AuditID = ""
		}
	}
	return textResult(checkText(out)), out, nil
}

// checkEvent builds the event the hook would get for the call.
func checkEvent(in CheckInput, dir string) (*hostio.Event, error) {
	tool, input := in.Tool, in.Input
	switch {
	case in.Command != "" && (in.Tool != "" && !policy.IsShellTool(in.Tool) && !policy.IsPowerShellTool(in.Tool) || in.Input != nil):
		return nil, errors.New(`give either "command", or "tool" with its "input"`)
	case in.Command != "":
		if tool == "" {
			tool = "Bash"
		}
		input = map[string]any{"command": in.Command}
	case in.Tool == "":
		return nil, errors.New(`nothing to check: give "command", or "tool" with its "input"`)
	}
	if input == nil {
		input = map[string]any{}
	}
	raw, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	return &hostio.Event{HookEventName: "PreToolUse", ToolName: tool, ToolInput: raw, Cwd: dir}, nil
}

func checkOutput(res hook.Result) CheckOutput {
	d, v := res.Decision, res.Verdict
	out := CheckOutput{
		Verdict:  v.Effect.String(),
		Decision: audit.DecisionNone,
		Answer:   "pass",
		Reason:   d.Reason,
		Rule:     v.Rule,
		Targets:  v.Targets,
		Warning:  d.SystemMessage,
	}
	if d.Permission != hostio.NoOpinion {
		out.Answer = string(d.Permission)
	}
	if out.Reason == "" {
		out.Reason = d.Context
	}
	if out.Reason == "" {
		out.Reason = v.Reason
	}
	if rec := res.Record; rec != nil {
		out.Decision = rec.Decision
		if len(rec.Checkpoints) > 0 {
			out.AuditID, out.Checkpoints = rec.ID, checkpoints(rec.Checkpoints)
		}
	}
	for _, m := range v.Matches {
		out.Steps = append(out.Steps, Step{
			Verdict: m.Effect.String(), Kind: string(m.Kind), Source: m.Source, Host: m.Host,
			Rule: m.Rule, Reason: m.Reason, Targets: m.Targets,
		})
	}
	return out
}

// checkpoints groups the audit log's per-VM checkpoints by VPG.
func checkpoints(cps []audit.Checkpoint) []Checkpoint {
	var out []Checkpoint
	for _, cp := range cps {
		i := len(out) - 1
		if i < 0 || out[i].VPGIdentifier != cp.VPGIdentifier || out[i].Tag != cp.Tag {
			out = append(out, Checkpoint{VPG: cp.VPG, VPGIdentifier: cp.VPGIdentifier, Tag: cp.Tag, Identifier: cp.Identifier, Time: rfc3339(cp.Time)})
			i++
		}
		if cp.VM != "" {
			out[i].VMs = append(out[i].VMs, cp.VM)
		}
	}
	return out
}

// checkText is the answer for the model, in a few lines.
func checkText(o CheckOutput) string {
	var b []string
	switch {
	case o.Decision == audit.DecisionPending:
		b = append(b, "Zerto accepted the checkpoint but writes it later: the hook holds the call back until it lands; retry then.")
	case o.Answer == "pass":
		if o.Decision == audit.DecisionProtected {
			b = append(b, "The hook lets this call run: it is protected by the checkpoint below.")
		} else {
			b = append(b, "The hook lets this call pass.")
		}
	case o.Answer == "ask":
		b = append(b, "The hook asks the person before this call runs.")
	default:
		b = append(b, "The hook denies this call: it would not run.")
	}
	b = append(b, "verdict: "+o.Verdict+", decision: "+o.Decision)
	if o.Reason != "" {
		b = append(b, o.Reason)
	}
	if o.Warning != "" {
		b = append(b, "warning: "+o.Warning)
	}
	return strings.Join(b, "\n")
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func ptr[T any](v T) *T { return &v }
