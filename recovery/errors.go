package recovery

import (
	"fmt"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/zvm"
)

// NotFoundError is returned by Find for an ID that is neither a record of
// the audit log nor a checkpoint in any VPG's journal. It wraps
// audit.ErrNotFound.
type NotFoundError struct {
	ID string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%q is neither an audit id in the log nor a checkpoint in a VPG's journal", e.ID)
}

// Unwrap returns audit.ErrNotFound.
func (e *NotFoundError) Unwrap() error { return audit.ErrNotFound }

// NotProtectedError is returned by Find for a logged call that has no
// checkpoint to go back to: one the hook did not protect (denied, asked, or
// let through on an error), or one whose tag Zerto had not written when the
// hook answered and whose journal does not hold it.
type NotProtectedError struct {
	ID       string
	Decision string // the record's decision, such as "deny"
	Tool     string
	// Pending names the tags Zerto had accepted but not written.
	Pending []string
}

func (e *NotProtectedError) Error() string {
	if len(e.Pending) > 0 {
		return fmt.Sprintf("call %s has no checkpoint: Zerto had not written its tag %q when the hook answered (decision %s), and the journal does not hold it",
			e.ID, e.Pending[0], e.Decision)
	}
	return fmt.Sprintf("call %s (%s) was not protected: the hook took no checkpoint for it (decision %s), so there is nothing to go back to",
		e.ID, e.Tool, e.Decision)
}

// AgedOutError says a rewind point's checkpoint is no longer in its VPG's
// journal. Zerto keeps checkpoints only as long as the VPG's journal
// history, and a re-sync empties the journal sooner: which of the two
// happened is told from the VPG's configured history. All times are
// Zerto's.
type AgedOutError struct {
	Point Point
	// Earliest is the time of the journal's earliest checkpoint; zero when
	// the journal holds none.
	Earliest time.Time
	// History is how long the VPG's journal is configured to keep
	// checkpoints; zero when Zerto does not say.
	History time.Duration
	// Emptied says the checkpoint was younger than History: it did not age
	// out, the journal was emptied (a re-sync does that).
	Emptied bool
	// SubStatus is the VPG's substatus when rewind looked, such as
	// "DeltaSync".
	SubStatus string
}

func (e *AgedOutError) Error() string {
	p := e.Point
	what := fmt.Sprintf("checkpoint %s", p.Checkpoint)
	if p.Tag != "" {
		what = fmt.Sprintf("checkpoint %q (CheckpointIdentifier %s)", p.Tag, p.Checkpoint)
	}
	if !p.Time.IsZero() {
		what += " of " + zTime(p.Time)
	}
	earliest := "it holds no checkpoints now"
	if !e.Earliest.IsZero() {
		earliest = "its earliest checkpoint is of " + zTime(e.Earliest)
	}
	sub := ""
	if e.SubStatus != "" && e.SubStatus != "None" {
		sub = ", and the VPG is in " + e.SubStatus
	}
	switch {
	case e.Emptied:
		return fmt.Sprintf("%s is no longer in VPG %s's journal although the journal keeps %s of history: the journal was emptied, as a re-sync does (%s%s)",
			what, p.VPG, approx(e.History), earliest, sub)
	case e.History > 0:
		return fmt.Sprintf("%s is no longer in VPG %s's journal: it aged out, the journal keeps %s and %s", what, p.VPG, approx(e.History), earliest)
	}
	return fmt.Sprintf("%s is no longer in VPG %s's journal: it aged out or the journal was emptied by a re-sync (Zerto does not say how long this journal keeps checkpoints; %s%s)",
		what, p.VPG, earliest, sub)
}

// approx writes a journal history for a person: "24h", "90m".
func approx(d time.Duration) string {
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d >= time.Minute:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

// StateError says a VPG's state does not allow the operation now: a
// failover test already running, none running to stop, a failover or move
// under way.
type StateError struct {
	VPG string
	// State is the VPG's state as Zerto reports it, such as
	// "FailingOver/FailingOverBeforeCommit" or "in a failover test".
	State string
	// TestRunning says the VPG is in a failover test.
	TestRunning bool
	Reason      string
}

func (e *StateError) Error() string { return e.Reason }

// zTime writes a Zerto time for a person: UTC, to the second.
func zTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// PrefixError refuses an ID that cannot name one call for sure: an audit
// id prefix shorter than MinPrefix, or a prefix of digits only, which may
// as well be a CheckpointIdentifier. Nothing is sent to Zerto.
type PrefixError struct {
	ID string
	// IDs are the audit ids the prefix matches, oldest first.
	IDs []string
	// Digits says the prefix could be a CheckpointIdentifier too.
	Digits bool
}

func (e *PrefixError) Error() string {
	if e.Digits {
		return fmt.Sprintf("%q could be a CheckpointIdentifier or the start of audit id %s: rewind does not guess which", e.ID, strings.Join(e.IDs, ", "))
	}
	return fmt.Sprintf("audit id prefix %q is too short: type at least %d characters of the id", e.ID, MinPrefix)
}

// ChoiceError says a VM has a rewind point in several VPGs (the hook took
// a checkpoint in each) and the person did not choose one, or chose a VPG
// the call has no point in. Nothing is sent to Zerto.
type ChoiceError struct {
	// VM is the VM in several VPGs; empty when Unknown is set.
	VM string
	// VPGs are the names of the VPGs to choose from.
	VPGs []string
	// Unknown is a chosen VPG that holds no rewind point of the call.
	Unknown string
}

func (e *ChoiceError) Error() string {
	if e.Unknown != "" {
		return fmt.Sprintf("VPG %q holds no rewind point of this call: its points are in %s", e.Unknown, orList(e.VPGs))
	}
	if len(e.VPGs) > 0 && e.VM == "" {
		return fmt.Sprintf("VPGs %s were both chosen for the same VM: choose one", orList(e.VPGs))
	}
	return fmt.Sprintf("%s has a rewind point in VPGs %s: choose the one to go back in; nothing was sent to Zerto", e.VM, andList(e.VPGs))
}

// ConfirmError says an operation needs a person's confirmation, which the
// front end did not get: declined, not given, or given through a channel
// that is not a person's. Nothing was changed by the operation.
type ConfirmError struct {
	Mode   string
	Reason string
	// Refused is, for a test or a stop that runs with a person's
	// credentials, Zerto's refusal of the hook's own client.
	Refused *zvm.Error
}

func (e *ConfirmError) Error() string {
	if e.Reason != "" {
		return e.Reason
	}
	return fmt.Sprintf("%s not confirmed: nothing was changed", e.Mode)
}

// Unwrap returns Zerto's refusal of the hook's client, if any.
func (e *ConfirmError) Unwrap() error {
	if e.Refused == nil {
		return nil
	}
	return e.Refused
}

// WaitsError says a journal restore waits in Zerto for its commit or
// rollback and rewind does not follow it further: the task was cancelled
// from rewind's side, Zerto refused or failed the commit, or the restore
// state is not what rewind expected. Commands says how a person finishes
// or undoes it.
type WaitsError struct {
	VM, VPG string
	// Task is the restore's task and State the last state seen of it.
	Task, State string
	// Zerto is what Zerto showed of the VM and its VPG.
	Zerto string
	// Commands finish (commit) and undo (roll back) the restore.
	Commit, Rollback string
	Err              error
}

func (e *WaitsError) Error() string {
	msg := fmt.Sprintf("VM %s (VPG %s) may be waiting in Zerto for a commit or a rollback of its journal restore (task %s, %s)", e.VM, e.VPG, e.Task, e.State)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if e.Zerto != "" {
		msg += "; Zerto shows " + e.Zerto
	}
	return msg + fmt.Sprintf("; finish it with %q or undo it with %q", e.Commit, e.Rollback)
}

// Unwrap returns the cause.
func (e *WaitsError) Unwrap() error { return e.Err }

// HookCredentialsError refuses an operator's credentials that are the
// hook's own: the agent's environment may hold those, so they never run
// what a person's credentials are asked for.
type HookCredentialsError struct {
	User string
}

func (e *HookCredentialsError) Error() string {
	return "these are rewind's own Zerto credentials (the hook's, which the agent's environment may hold): going back needs your own Zerto user"
}

func orList(s []string) string  { return joinList(s, "or") }
func andList(s []string) string { return joinList(s, "and") }

func joinList(s []string, last string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " " + last + " " + s[len(s)-1]
}
