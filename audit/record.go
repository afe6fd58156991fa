package audit

import "time"

// The decisions a Record carries, as the hook's decision table names them.
const (
	// DecisionNone: no rule applied, or a read-only one; the call ran.
	DecisionNone = "none"
	// DecisionProtected: a checkpoint was confirmed before the call ran.
	DecisionProtected = "protected"
	// DecisionPending: Zerto took the tag but will write it after the
	// budget; the call was held back until a retry.
	DecisionPending = "pending"
	// DecisionAsk: a person had to confirm the call.
	DecisionAsk = "ask"
	// DecisionDeny: the call was refused.
	DecisionDeny = "deny"
	// DecisionAllowOnError, DecisionAskOnError and DecisionDenyOnError:
	// rewind itself failed, and on_error decided.
	DecisionAllowOnError = "allow-on-error"
	DecisionAskOnError   = "ask-on-error"
	DecisionDenyOnError  = "deny-on-error"

	// DecisionUndoTest, DecisionUndoStopTest and DecisionUndoRestore: a
	// person (through `rewind undo`, the MCP server or the page) started a
	// failover test from a rewind point, stopped one, or restored VMs to
	// it and committed the restore.
	DecisionUndoTest     = "undo-test"
	DecisionUndoStopTest = "undo-stop-test"
	DecisionUndoRestore  = "undo-restore"
	// DecisionUndoRollback and DecisionUndoCommit: a person rolled back,
	// or committed, a journal restore that waited for it.
	DecisionUndoRollback = "undo-rollback"
	DecisionUndoCommit   = "undo-commit"
	// DecisionUndoFailed: one of those did not happen; Error (and
	// ZertoError, when Zerto refused or failed) says why.
	DecisionUndoFailed = "undo-failed"

	// DecisionCheckpoint: a checkpoint taken with no call let through: on
	// request (the MCP server's zerto_tag_checkpoint), or ahead of a call
	// that was checked (zerto_check_tool). It is a rewind point; the call,
	// when it is made, gets a record of its own.
	DecisionCheckpoint = "checkpoint"
)

// Record is one hook decision, or one rewind, one line of the log.
type Record struct {
	// ID names the record for `rewind undo`; Append fills it when empty.
	ID string `json:"id"`
	// Time is when the decision was taken; Append fills it, in UTC, when
	// zero.
	Time time.Time `json:"time"`
	// Host is the agent host, such as "claude".
	Host string `json:"host,omitempty"`
	// Session is the host's session ID.
	Session string `json:"session,omitempty"`
	// ToolUseID is the host's ID of the tool call.
	ToolUseID string `json:"tool_use_id,omitempty"`
	// Tool is the host's tool name: "Bash", "mcp__vsphere__power_off_vm".
	Tool string `json:"tool"`
	// Cwd is the directory the call ran in.
	Cwd string `json:"cwd,omitempty"`
	// Excerpt is a short, single-line, redacted excerpt of the command or
	// tool input; see Excerpt.
	Excerpt string `json:"excerpt,omitempty"`
	// Decision is one of the Decision constants.
	Decision string `json:"decision"`
	// Rule names the rule that matched.
	Rule string `json:"rule,omitempty"`
	// Reason says why, as the host was told.
	Reason string `json:"reason,omitempty"`
	// Targets are the VM or host names the call changes, as written in it.
	Targets []string `json:"targets,omitempty"`
	// VMs are the Zerto VM names the config maps Targets to ([targets]
	// aliases, strip_domain), in the same order; left out when every
	// target is its own name.
	VMs []string `json:"vms,omitempty"`
	// Checkpoints are the rewind points taken or awaited for the call, one
	// per VPG the targets belong to.
	Checkpoints []Checkpoint `json:"checkpoints,omitempty"`
	// ZertoError is Zerto's own message when Zerto refused or failed.
	ZertoError string `json:"zerto_error,omitempty"`
	// ZVMOffsetMS is how far the ZVM's clock was ahead of this machine's
	// (negative: behind), in milliseconds, as measured for the call: every
	// Zerto timestamp was compared in ZVM time. Absent when not measured.
	ZVMOffsetMS *int64 `json:"zvm_offset_ms,omitempty"`
	// Error is rewind's own failure, when on_error decided.
	Error string `json:"error,omitempty"`
	// Rewinds is, on the record of a rewind, the ID of the call it went
	// back for; empty for a rewind to a bare checkpoint.
	Rewinds string `json:"rewinds,omitempty"`
	// Task is, on the record of a rewind, Zerto's task identifier of the
	// operation (the last one, such as a restore's commit): how rewind
	// tells a failover test it started from one someone else did.
	Task string `json:"task,omitempty"`
	// RetryAfter is, on the record of a pending call, when the hook told
	// the agent to retry it: this machine's time (not the ZVM's), the
	// latest time one of its tags is expected. Records written before it
	// existed say it only in Reason (see RetryAfter).
	RetryAfter time.Time `json:"retry_after,omitzero"`
	// ElapsedMS is how long the hook took to decide, in milliseconds.
	ElapsedMS int64 `json:"elapsed_ms"`
	// Outcome is how the call ended, joined by Read and Find from the
	// outcome the host's post-tool hook appended later (see
	// Log.AppendOutcome), or inferred; nil while unknown. It is never
	// written on the record's own line.
	Outcome *Outcome `json:"outcome,omitempty"`
}

// The states of an Outcome.
const (
	// OutcomeRan: the call ran and succeeded (for a shell, exited 0).
	OutcomeRan = "ran"
	// OutcomeFailed: the call ran and failed (a non-zero exit status, an
	// error the tool reported).
	OutcomeFailed = "failed"
	// OutcomeInterrupted: the call was stopped before it finished.
	OutcomeInterrupted = "interrupted"
	// OutcomeNotRun: the host never ran the call: it said so, or the log
	// shows it went past it (see Log.Read).
	OutcomeNotRun = "not-run"
)

// Outcome is how a call the hook judged ended.
type Outcome struct {
	// State is one of the Outcome constants.
	State string `json:"state"`
	// ExitCode is a shell command's exit status, when the host reported
	// one.
	ExitCode *int `json:"exit_code,omitempty"`
	// Error is the host's message for a failed call, shortened and
	// redacted.
	Error string `json:"error,omitempty"`
	// DurationMS is how long the call ran, when the host said.
	DurationMS *int64 `json:"duration_ms,omitempty"`
	// Reported is set when the host's post-tool hook reported the
	// outcome; an outcome rewind inferred has it false.
	Reported bool `json:"reported,omitempty"`
	// Time is when the outcome was reported.
	Time time.Time `json:"time,omitzero"`
}

// NotRun reports whether the call's outcome says it did not run. A call
// whose outcome is unknown may have run; one the hook refused (deny,
// pending) did not, which its Decision says.
func (r *Record) NotRun() bool {
	return r.Outcome != nil && r.Outcome.State == OutcomeNotRun
}

// Checkpoint is one tagged checkpoint that undoes a call, or, while its
// Identifier is empty, one Zerto accepted but has not written yet.
type Checkpoint struct {
	// VM is the Zerto VM name a target resolved to.
	VM string `json:"vm,omitempty"`
	// VMIdentifier is Zerto's VmIdentifier, such as "<guid>.vm-38".
	VMIdentifier string `json:"vm_identifier,omitempty"`
	// VPG is the name of the VPG protecting the VM.
	VPG string `json:"vpg,omitempty"`
	// VPGIdentifier is Zerto's VpgIdentifier.
	VPGIdentifier string `json:"vpg_identifier,omitempty"`
	// Identifier is Zerto's CheckpointIdentifier, empty while pending.
	Identifier string `json:"identifier,omitempty"`
	// Tag is the checkpoint's tag, as shown in Zerto's console.
	Tag string `json:"tag,omitempty"`
	// Time is the checkpoint's TimeStamp in the journal.
	Time time.Time `json:"time,omitzero"`
}
